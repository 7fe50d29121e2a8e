/**
 * The postMessage protocol between the loader (on the host page) and the chat window (the iframe).
 * Both sides pin the target origin when posting and check `event.origin` and `event.source` on receipt;
 * the tag keeps our messages apart from whatever else the host page posts around.
 */
import type { FloatNavigationSettings, InvitationSettings, WidgetSettings } from '@parley/protocol';

export type { FloatNavigationSettings, InvitationSettings };

export const BRIDGE_TAG = 'parley';

/** What the loader needs from the settings to draw the launcher, float navigation and invitation. */
export interface LauncherLook {
  launcher: WidgetSettings['launcher'];
  invitation: WidgetSettings['invitationBox'];
  floatNavigation: FloatNavigationSettings;
  /** Size of the chat window on a desktop, in pixels. */
  width: number;
  height: number;
  title: string;
  lang: 'zh' | 'en';
  /** The site's time zone, in which the invitation's days and hours are read. */
  timeZone: string;
}

/** Loader → chat window. */
export type HostMessage =
  | { tag: typeof BRIDGE_TAG; type: 'page'; url: string; title: string }
  | { tag: typeof BRIDGE_TAG; type: 'visibility'; open: boolean };

/** Chat window → loader. */
export type ChatMessage =
  | { tag: typeof BRIDGE_TAG; type: 'look'; look: LauncherLook }
  /** `preview` is the newest unread message's text, for the closed window's launcher. */
  | { tag: typeof BRIDGE_TAG; type: 'unread'; count: number; preview?: string }
  /** The composer's text, kept by the loader so that it follows the visitor to the site's next page. */
  | { tag: typeof BRIDGE_TAG; type: 'draft'; text: string }
  /** The visitor's token, kept by the loader too: where the frame's own storage is blocked (third-party rules), the host page's is not. */
  | { tag: typeof BRIDGE_TAG; type: 'token'; token: string }
  | { tag: typeof BRIDGE_TAG; type: 'close' };

/** The shape of a chat link's key (the protocol's `linkKey`): `/chat?link=<key>`, or `widget.js?link=<key>` on a site. */
export const LINK_PATTERN = /^[A-Za-z0-9_-]{3,32}$/;

/** The shape of a YQToken (the protocol's `yqToken`), checked before one is stored or used. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{22,64}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Narrows what arrived from the host page; anything else is ignored. */
export function readHostMessage(value: unknown): HostMessage | null {
  if (!isRecord(value) || value.tag !== BRIDGE_TAG) return null;
  if (value.type === 'page' && typeof value.url === 'string') {
    return {
      tag: BRIDGE_TAG,
      type: 'page',
      url: value.url.slice(0, 2048),
      title: typeof value.title === 'string' ? value.title.slice(0, 512) : '',
    };
  }
  if (value.type === 'visibility' && typeof value.open === 'boolean') return { tag: BRIDGE_TAG, type: 'visibility', open: value.open };
  return null;
}
