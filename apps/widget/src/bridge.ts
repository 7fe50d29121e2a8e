/**
 * The postMessage protocol between the loader (on the host page) and the chat window (the iframe).
 * Both sides pin the target origin when posting and check `event.origin` and `event.source` on receipt;
 * the tag keeps our messages apart from whatever else the host page posts around.
 */
import type { FloatNavigationSettings, InvitationSettings, Message, WidgetSettings } from '@parley/protocol';

export type { FloatNavigationSettings, InvitationSettings };

export const BRIDGE_TAG = 'parley';

/** What the loader needs from the settings to draw the launcher, float navigation and invitation. */
export interface LauncherLook {
  launcher: WidgetSettings['launcher'];
  invitation: WidgetSettings['invitationBox'];
  floatNavigation: Omit<FloatNavigationSettings, 'items'> & { items: NavItem[] };
  /** Size of the chat window on a desktop, in pixels. */
  width: number;
  height: number;
  title: string;
  lang: 'zh' | 'en';
  /** The site's time zone, in which the invitation's days and hours are read. */
  timeZone: string;
  /** The loader's own words, in the visitor's language (the chat window holds every translation). */
  texts: LoaderTexts;
}

/**
 * A float navigation item with what the chat window decided of it (so the loader carries no rules):
 * where it links (null for items the loader handles itself) and a WeChat item's pop-up.
 */
export type NavItem = FloatNavigationSettings['items'][number] & {
  href: string | null;
  card: { id: string } | { image: string } | null;
};

export interface LoaderTexts {
  open: string;
  close: string;
  chat: string;
  later: string;
  blink: string;
  chatTitle: string;
  nav: string;
}

/** `Parley(command, …)` calls the chat window carries out (CONTRACT §13): they need the visitor's credential. */
export const FRAME_COMMANDS = ['identify', 'setAttributes', 'reset'] as const;
export type FrameCommand = (typeof FRAME_COMMANDS)[number];

/** Loader → chat window. */
export type HostMessage =
  | { tag: typeof BRIDGE_TAG; type: 'page'; url: string; title: string }
  /**
   * `at` is when the host page opened or closed the window (its clock is the frame's): the frame learns of
   * it through another process, and an answer its socket brought meanwhile was not seen.
   */
  | { tag: typeof BRIDGE_TAG; type: 'visibility'; open: boolean; at?: number }
  /** A command of the site's script, with its first argument as given (checked by the server). */
  | { tag: typeof BRIDGE_TAG; type: 'command'; command: FrameCommand; data: unknown };

/** Chat window → loader. */
export type ChatMessage =
  | { tag: typeof BRIDGE_TAG; type: 'look'; look: LauncherLook }
  /** `preview` is the newest unread message's text, for the closed window's launcher. */
  | { tag: typeof BRIDGE_TAG; type: 'unread'; count: number; preview?: string }
  /** The composer's text, kept by the loader so that it follows the visitor to the site's next page. */
  | { tag: typeof BRIDGE_TAG; type: 'draft'; text: string }
  /** The visitor's token, kept by the loader too: where the frame's own storage is blocked (third-party rules), the host page's is not. */
  | { tag: typeof BRIDGE_TAG; type: 'token'; token: string }
  | { tag: typeof BRIDGE_TAG; type: 'close' }
  /** A message from an agent or the robot, for the site's `message` handlers. */
  | { tag: typeof BRIDGE_TAG; type: 'message'; message: Message };

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
  if (value.type === 'visibility' && typeof value.open === 'boolean') {
    const at = typeof value.at === 'number' && Number.isFinite(value.at) ? { at: value.at } : {};
    return { tag: BRIDGE_TAG, type: 'visibility', open: value.open, ...at };
  }
  const command = FRAME_COMMANDS.find((name) => name === value.command);
  if (value.type === 'command' && command) return { tag: BRIDGE_TAG, type: 'command', command, data: value.data };
  return null;
}
