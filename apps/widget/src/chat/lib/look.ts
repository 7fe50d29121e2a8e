import type { WidgetSettings } from '@parley/protocol';
import type { LauncherLook, LoaderTexts } from '../../bridge';
import { floatHref, weChatCard } from '../../loader/rules';

/** What the loader is told to draw, taken from the widget's settings. */
export function lookOf(settings: WidgetSettings, title: string, lang: 'zh' | 'en', texts: LoaderTexts): LauncherLook {
  return {
    launcher: settings.launcher,
    invitation: settings.invitationBox,
    floatNavigation: {
      ...settings.floatNavigation,
      items: settings.floatNavigation.items.map((item) => ({
        ...item,
        href: floatHref(item),
        // A path is this server's, which is where the chat window lives.
        card: item.type === 'wechat' ? weChatCard(item.value, location.origin) : null,
      })),
    },
    width: settings.window.width,
    height: settings.window.height,
    title,
    lang,
    timeZone: settings.timeZone,
    texts,
  };
}
