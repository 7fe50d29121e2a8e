import type { Message, Visit, Visitor, VisitorState } from '@parley/protocol';

/** How long after sending an agent may still withdraw a message (the server checks the same). */
export const WITHDRAW_WINDOW_MS = 2 * 60 * 1000;
/** Messages asked for at once, both for the first screen and for each scroll back. */
export const PAGE_SIZE = 30;

/** A message as the workbench holds it; `pending` ones are ours, shown before the server stored them. */
export interface ChatMessage extends Message {
  pending?: boolean;
  failed?: boolean;
}

export interface Conversation {
  messages: ChatMessage[];
  /** False until the newest page has been read from the server. */
  loaded: boolean;
  /** Whether older messages may exist before the first one held. */
  hasMore: boolean;
}

export type GroupKey = 'current' | 'left' | 'wait' | 'robot' | 'ended';
export const GROUPS: readonly GroupKey[] = ['current', 'left', 'wait', 'robot', 'ended'];

/**
 * The list's group: a conversation whose visitor left is apart from those in conversation (the server
 * ends it after the auto-close grace unless the visitor comes back), so it does not count as active.
 */
export function listGroupOf(visitor: Pick<Visitor, 'state' | 'online'>): GroupKey {
  const group = groupOf(visitor);
  return group === 'current' && !visitor.online ? 'left' : group;
}

export function groupOf(visitor: Pick<Visitor, 'state'>): GroupKey {
  switch (visitor.state) {
    case 'current':
    case 'monitor':
      return 'current';
    case 'wait':
      return 'wait';
    case 'robot':
      return 'robot';
    default:
      return 'ended';
  }
}

/** The highest stored seq held; pending messages (seq 0) do not count. */
export function lastSeq(messages: readonly ChatMessage[]): number {
  let max = 0;
  for (const message of messages) if (message.seq > max) max = message.seq;
  return max;
}

/** The lowest stored seq held, for scrolling back; 0 when nothing stored is held. */
export function firstSeq(messages: readonly ChatMessage[]): number {
  let min = 0;
  for (const message of messages) if (message.seq > 0 && (min === 0 || message.seq < min)) min = message.seq;
  return min;
}

/**
 * Merges messages into a conversation: one entry per onlyID (a stored copy replaces our pending one,
 * a newer copy replaces an older one), ordered by seq with pending messages last, in send order.
 */
export function mergeMessages(existing: readonly ChatMessage[], incoming: readonly ChatMessage[]): ChatMessage[] {
  if (incoming.length === 0) return existing as ChatMessage[];
  const byId = new Map<string, ChatMessage>();
  for (const message of existing) byId.set(message.onlyID, message);
  for (const message of incoming) {
    const held = byId.get(message.onlyID);
    // A stale pending copy never overwrites the stored one, and a withdrawn one stays withdrawn.
    if (held && held.seq > 0 && message.seq === 0) continue;
    byId.set(message.onlyID, held?.withdrawn ? { ...message, withdrawn: true, msg: '' } : message);
  }
  const all = Array.from(byId.values());
  const stored = all.filter((message) => message.seq > 0).sort((a, b) => a.seq - b.seq);
  const pending = all.filter((message) => message.seq === 0);
  return [...stored, ...pending];
}

/** True when the incoming seq leaves a hole after what is held: a catch-up with afterSeq is due. */
export function hasGap(messages: readonly ChatMessage[], incomingSeq: number): boolean {
  const last = lastSeq(messages);
  return last > 0 && incomingSeq > last + 1;
}

export type Translate = (key: string, values: Record<string, string>) => string;

/** The seed's source title: "came by searching KEYWORD via ENGINE", or the nearest thing known. */
export function sourceTitle(visitor: Pick<Visitor, 'engine' | 'keyword' | 'referrer'>, t: Translate): string {
  const engine = visitor.engine.trim();
  const keyword = visitor.keyword.trim();
  if (keyword && engine) return t('workbench.source.search', { keyword, engine });
  if (keyword) return t('workbench.source.keyword', { keyword });
  if (engine) return t('workbench.source.engine', { engine });
  const host = hostOf(visitor.referrer);
  if (host) return t('workbench.source.referrer', { host });
  return t('workbench.source.direct', {});
}

export function hostOf(url: string): string {
  if (!url) return '';
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** A visitor as added by a presence frame: counters default to zero when the frame leaves them out. */
export function visitorFromFrame(data: Partial<Visitor> & { YQToken: string }): Visitor {
  return {
    nickname: '',
    state: 'end' as VisitorState,
    serviceID: null,
    online: true,
    channel: 'web',
    region: '',
    platform: '',
    browser: '',
    referrer: '',
    engine: '',
    keyword: '',
    firstUrl: '',
    created_at: new Date().toISOString(),
    lastMessage: null,
    ...data,
    unreadNumber: data.unreadNumber ?? 0,
    umsg: data.umsg ?? 0,
    smsg: data.smsg ?? 0,
  };
}

/** Newest visit first, without repeating one already held. */
export function addVisit(visits: readonly Visit[], visit: Visit): Visit[] {
  if (visits.some((held) => held.URL === visit.URL && held.created_at === visit.created_at)) return visits as Visit[];
  return [visit, ...visits];
}

/** Splits text into plain parts and links, so that messages are drawn as text with clickable links. */
export function linkify(text: string): { text: string; href?: string }[] {
  const parts: { text: string; href?: string }[] = [];
  const pattern = /\bhttps?:\/\/[^\s<>"'`]+|\bwww\.[^\s<>"'`]+/gi;
  let index = 0;
  for (const match of text.matchAll(pattern)) {
    const start = match.index ?? 0;
    let link = match[0];
    // Punctuation that ends a sentence is not part of the link.
    const trail = /[.,;:!?)\]}，。！？、]+$/.exec(link);
    if (trail) link = link.slice(0, -trail[0].length);
    const href = safeUrl(link.startsWith('www.') ? `https://${link}` : link);
    if (!href) continue;
    if (start > index) parts.push({ text: text.slice(index, start) });
    parts.push({ text: link, href });
    index = start + link.length;
  }
  if (index < text.length) parts.push({ text: text.slice(index) });
  return parts;
}

/** A URL we put in an href or src: http(s), or a path of our own server; anything else is refused. */
export function safeUrl(value: string): string | null {
  if (/^\/(?!\/)/.test(value)) return value;
  if (!/^https?:\/\//i.test(value)) return null;
  try {
    return new URL(value).href;
  } catch {
    return null;
  }
}

/**
 * The address of a file uploaded to this server (`/api/files/…`), or null for anything else: only those
 * are drawn as images, so that an address a visitor wrote can never make an agent's browser fetch it
 * (a tracking pixel would tell its owner the agent's address).
 */
export function ownUpload(value: string, origin: string = globalThis.location?.origin ?? 'http://parley.invalid'): string | null {
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return null;
  }
  if (url.origin !== new URL(origin).origin || !url.pathname.startsWith('/api/files/')) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** A client message id: unique enough per visitor, and within the protocol's alphabet. */
export function newOnlyId(): string {
  const random = Math.random().toString(36).slice(2, 10);
  return `s-${Date.now().toString(36)}-${random}`;
}

export function canWithdraw(message: ChatMessage, me: string, now: number): boolean {
  return (
    message.role === 'service' &&
    message.serviceID === me &&
    !message.withdrawn &&
    // A message to WeChat cannot be taken back there once sent (§11).
    !message.delivery &&
    message.seq > 0 &&
    now - Date.parse(message.time) < WITHDRAW_WINDOW_MS
  );
}

/** File name shown for an uploaded file: the name we sent it under when known, else the last part of the URL. */
export function fileLabel(url: string): string {
  const hash = url.indexOf('#');
  if (hash >= 0) {
    try {
      const name = decodeURIComponent(url.slice(hash + 1));
      if (name) return name;
    } catch {
      // A malformed fragment falls back to the path.
    }
  }
  const path = (hash >= 0 ? url.slice(0, hash) : url).split('?')[0] ?? '';
  return path.split('/').pop() || url;
}
