import type { WidgetSettings } from '@parley/protocol';
import type { LauncherLook } from '../../bridge';

/** What the loader is told to draw, taken from the widget's settings. */
export function lookOf(settings: WidgetSettings, title: string, lang: 'zh' | 'en'): LauncherLook {
  return {
    launcher: settings.launcher,
    invitation: settings.invitationBox,
    floatNavigation: settings.floatNavigation,
    width: settings.window.width,
    height: settings.window.height,
    title,
    lang,
    timeZone: settings.timeZone,
  };
}
