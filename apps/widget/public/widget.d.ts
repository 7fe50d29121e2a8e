/**
 * Parley's widget API (CONTRACT §13), served at `/widget.d.ts`. The embed code defines `Parley` as a
 * stub that queues calls until `/widget.js` has loaded; they then run in the order they were made.
 *
 *   <script>window.Parley=window.Parley||function(){(Parley.q=Parley.q||[]).push(arguments)}</script>
 *   <script src="https://chat.example.com/widget.js" async></script>
 */

/** An attribute's value; a visitor carries at most 50, named by letters, digits and `_ . : -` (at most 64). */
export type ParleyAttributeValue = string | number | boolean;

export interface ParleyIdentity {
  /** The site's own user id (at most 255 characters). */
  id: string;
  /** Hex HMAC-SHA256(identitySecret, id), computed by the site's server, never in the browser. */
  hash: string;
  name?: string;
  email?: string;
  phone?: string;
  attributes?: Record<string, ParleyAttributeValue>;
}

export interface ParleyContact {
  name?: string;
  email?: string;
  phone?: string;
  attributes?: Record<string, ParleyAttributeValue>;
}

/** A message from an agent or the robot. */
export interface ParleyMessage {
  id: number;
  seq: number;
  onlyID: string;
  role: 'service' | 'robot';
  type: 'text' | 'image' | 'file';
  msg: string;
  nickname: string;
  /** ISO 8601 */
  time: string;
}

export interface ParleyEvents {
  /** The chat window is loaded and the launcher drawn; a handler added later is called at once. */
  ready: () => void;
  open: () => void;
  close: () => void;
  message: (message: ParleyMessage) => void;
  /** Messages the visitor has not seen yet. */
  unread: (count: number) => void;
}

export interface Parley {
  (command: 'open' | 'close' | 'toggle'): void;
  /** Shows or hides the launcher; the window still opens with `open`. */
  (command: 'show' | 'hide'): void;
  /** Ties this browser's visitor to the site's user: the same history on every browser and device. */
  (command: 'identify', identity: ParleyIdentity): void;
  /** Name, email, phone and attributes, for a visitor the site does not identify. */
  (command: 'setAttributes', contact: ParleyContact): void;
  /** Forgets the visitor on this browser (at the site's logout): the next chat is a new anonymous one. */
  (command: 'reset'): void;
  <E extends keyof ParleyEvents>(command: 'on', event: E, handler: ParleyEvents[E]): void;
  /** Calls made before the loader arrived. */
  q?: IArguments[];
}

declare global {
  interface Window {
    Parley: Parley;
  }
  const Parley: Parley;
}
