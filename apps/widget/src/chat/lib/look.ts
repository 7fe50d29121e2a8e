import type { WidgetSettings } from '@parley/protocol';
import type { InvitationStyle, LauncherLook, LauncherStyle } from '../../bridge';

const DESKTOP_WIDTH = 384;
const DESKTOP_HEIGHT = 660;

/** What the loader is told to draw, taken from the widget's settings. */
export function lookOf(settings: WidgetSettings, title: string, lang: 'zh' | 'en'): LauncherLook {
  const launcher: LauncherStyle = {
    show: true,
    style: settings.launcherText ? 'bar' : settings.icon ? 'image' : 'bubble',
    position: settings.position,
    bottom: 20,
    side: 20,
    color: settings.color,
    text: settings.launcherText,
    image: settings.icon,
    delaySeconds: 0,
  };
  const invitation: InvitationStyle = {
    enabled: settings.invitation.enabled,
    delaySeconds: settings.invitation.delaySeconds,
    intervalSeconds: 0,
    maxTimes: 1,
    text: settings.invitation.text,
    // Empty: the loader's own wording in the visitor's language.
    acceptText: '',
    laterText: '',
    image: '',
  };
  return {
    launcher: { pc: launcher, mobile: launcher },
    invitation: { pc: invitation, mobile: invitation },
    floatNavigation: { enabled: false, side: 'right', top: 40, color: settings.color, items: [] },
    width: DESKTOP_WIDTH,
    height: DESKTOP_HEIGHT,
    title,
    lang,
  };
}
