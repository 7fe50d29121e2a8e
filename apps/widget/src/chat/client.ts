import {
  type Frame,
  isFrame,
  type Message,
  type MessageType,
  SocketCode,
  type TranscriptOffer,
  type VisitorState,
  type WidgetSettings,
} from '@parley/protocol';
import { type Api, ApiError } from './lib/api';
import { backoffDelay, RECONNECT, RESEND } from './lib/backoff';
import type { Translate } from './lib/i18n';
import { type ChatItem, firstSeq, heldThrough, isGap, lastSeq, markWithdrawn, mergeMessages } from './lib/merge';
import { type InitData, isMessage, MAX_MESSAGE_LENGTH, normalizeSettings, type UploadData } from './lib/settings';
import { type SocketHandlers, VisitorSocket } from './lib/socket';
import { createTypingSender, type TypingSender } from './lib/throttle';
import type { LetterValues } from './lib/validate';

export interface Person {
  name: string;
  avatar: string;
}

export interface ChatState {
  phase: 'loading' | 'ready' | 'error';
  /** As the server sent them; none until the first init answers. */
  settings: WidgetSettings | null;
  conversation: VisitorState | null;
  agent: Person | null;
  robot: Person | null;
  position: number | null;
  items: ChatItem[];
  /** The socket is down (dropped, or the server unreachable); false while the first connection is made. */
  lost: boolean;
  /** A rating is asked for below the message with this seq, until it is given. */
  rating: { afterSeq: number; done: boolean } | null;
  unread: number;
  /** Older messages are being fetched (the window shows the last ones first). */
  loadingEarlier: boolean;
  /** The visitor has filled in the pre-chat form (on this site, in this browser). */
  preChatDone: boolean;
  /** What the server did about transcript mails when the visitor gave an address, until they dismiss it. */
  transcript: Exclude<TranscriptOffer, 'none'> | null;
}

export interface Page {
  url: string;
  title: string;
  referrer: string;
}

export interface ClientOptions {
  api: Api;
  t: Translate;
  lang: string;
  /** The chat link's key the visitor arrived through; tags a new visitor (and may pin it to an agent). */
  link?: string | undefined;
  /** Whose visitor this is: the embedding site's origin, so each site keeps its own history. */
  site: string;
  page: Page;
  /** Told whenever the unread count changes (the loader draws the badge). */
  onUnread: (count: number, preview?: string) => void;
  onSettings: (settings: WidgetSettings) => void;
  /** The token the loader kept on the host page; used when this origin's storage has none. */
  hostToken?: string | undefined;
  /** Told the token after every init, so the loader can keep it too. */
  onToken: (token: string) => void;
  /** Told each new message from an agent or the robot (the site's `message` handlers hear it). */
  onMessage?: (message: Message) => void;
  /** The clock (milliseconds since the epoch, the host page's too); tests pass their own. */
  now?: () => number;
  /** The socket; tests pass a fake. */
  createSocket?: (url: () => string, handlers: SocketHandlers) => Socket;
}

/** What the client needs of its socket. */
export interface Socket {
  start(): void;
  stop(): void;
  send(frame: Frame): boolean;
}

interface Outgoing {
  onlyID: string;
  type: MessageType;
  /** The text, or the uploaded file's URL once uploaded. */
  msg: string;
  file?: File;
  attempts: number;
}

const MAX_REINITS = 3;
/** An 8100 unanswered this long is sent again over HTTP (the server drops the copy by its onlyID). */
const SOCKET_ANSWER_MS = 10_000;
const CATCH_UP_PAGES = 50;
/** How many of the messages last shown are kept with their time (a close is heard of within milliseconds). */
const SHOWN_LATELY = 20;
const EARLIER_PAGE = 50;

/** What the closed window's launcher shows of the newest unread message: a text's start, nothing of a file. */
function previewOf(message: Message): string | undefined {
  return message.type === 'text' ? message.msg.slice(0, 200) : undefined;
}

function newOnlyId(): string {
  // randomUUID needs a secure context; plain-http deployments fall back to getRandomValues.
  if (typeof crypto.randomUUID === 'function' && globalThis.isSecureContext) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function storage(key: string, value?: string | null): string | null {
  // Storage may be blocked (privacy modes, third-party frame rules): the visitor then starts anew each time.
  try {
    if (value === null) localStorage.removeItem(key);
    else if (value !== undefined) localStorage.setItem(key, value);
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * The visitor's side of one conversation: init, the socket, the ordered outbox that retries each message
 * until the server acknowledges it, catch-up after gaps and reconnects, and the state the view draws.
 */
export class ChatClient {
  state: ChatState = {
    phase: 'loading',
    settings: null,
    conversation: null,
    agent: null,
    robot: null,
    position: null,
    items: [],
    lost: false,
    rating: null,
    unread: 0,
    loadingEarlier: false,
    preChatDone: false,
    transcript: null,
  };
  readonly typing: TypingSender;
  private readonly listeners = new Set<() => void>();
  private token = '';
  private socket: Socket | null = null;
  /** Whether the socket is open now: sends go over it (8100) then, over HTTP otherwise. */
  private socketOpen = false;
  /** Sends over the socket waiting for their 8101 or 8102, by onlyID. */
  private readonly awaiting = new Map<string, { resolve: (message: Message) => void; reject: (error: unknown) => void }>();
  private outbox: Outgoing[] = [];
  /** Messages that failed for good, kept so the retry control can send them again. */
  private readonly failed = new Map<string, Outgoing>();
  private pumping = false;
  private wake: (() => void) | null = null;
  private catchingUp = false;
  private catchUpAgain = false;
  private reinits = 0;
  private initAttempts = 0;
  private initRetry: ReturnType<typeof setTimeout> | undefined;
  private visible = false;
  /**
   * Agents' and the robot's last messages received while the window was seen, with when. The host page
   * closes the window through another process, so an answer the socket brings meanwhile is drawn in a
   * window already closed: those received after the close count as unread once the frame hears of it.
   */
  private shownLately: { at: number; message: Message }[] = [];
  /** The site's identify and setAttributes calls, one after another; sends wait for them. */
  private telling: Promise<void> = Promise.resolve();

  constructor(private readonly options: ClientOptions) {
    this.typing = createTypingSender((text) =>
      this.socket?.send({ code: SocketCode.typing, data: { text: text.slice(0, MAX_MESSAGE_LENGTH) } }),
    );
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(patch: Partial<ChatState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  private get tokenKey(): string {
    return `parley:yq:${this.options.site}`;
  }

  private get outboxKey(): string {
    return `parley:outbox:${this.token}`;
  }

  async init(): Promise<void> {
    this.set({ phase: this.state.phase === 'ready' ? 'ready' : 'loading' });
    const { page, lang } = this.options;
    const body = (YQToken: string | undefined) => ({
      YQToken,
      url: page.url,
      title: page.title,
      referrer: page.referrer,
      lang,
      channel: 'web',
      link: this.options.link,
    });
    let data: InitData;
    try {
      const stored = storage(this.tokenKey) ?? this.options.hostToken ?? undefined;
      try {
        data = await this.options.api.post<InitData>('/api/visitor/init', body(stored));
      } catch (error) {
        // A token the server rejects (malformed, forgotten) is dropped and the visitor starts anew.
        if (!stored || !(error instanceof ApiError) || !error.permanent) throw error;
        storage(this.tokenKey, null);
        this.options.hostToken = undefined;
        data = await this.options.api.post<InitData>('/api/visitor/init', body(undefined));
      }
    } catch {
      if (this.state.phase !== 'ready') this.set({ phase: 'error' });
      // Keep trying on our own: in a host page the launcher only appears once this succeeds.
      clearTimeout(this.initRetry);
      this.initRetry = setTimeout(() => void this.init(), backoffDelay(this.initAttempts++, RECONNECT));
      return;
    }
    clearTimeout(this.initRetry);
    this.initAttempts = 0;
    // Another visitor's history must not linger; what is still being sent stays.
    if (this.token !== data.YQToken) this.set({ items: this.state.items.filter((item) => item.seq === 0) });
    this.token = data.YQToken;
    storage(this.tokenKey, this.token);
    this.options.onToken(this.token);
    const settings = normalizeSettings(data.settings);
    const messages = Array.isArray(data.messages) ? data.messages.filter(isMessage) : [];
    this.set({
      phase: 'ready',
      settings,
      conversation: data.state,
      items: mergeMessages(this.state.items, messages),
      preChatDone: this.state.preChatDone || storage(`${this.tokenKey}:preChat`) === '1',
    });
    this.options.onSettings(settings);
    this.restoreOutbox();
    if (!this.socket) {
      const create = this.options.createSocket ?? ((url: () => string, handlers: SocketHandlers) => new VisitorSocket(url, handlers));
      this.socket = create(() => this.socketUrl(), {
        onFrame: (frame) => this.onFrame(frame),
        onOpen: (again) => {
          if (again) void this.catchUp();
          this.wake?.();
        },
        onConnectedChange: (connected) => {
          this.socketOpen = connected;
          // What the dropped socket had not answered goes again over HTTP, or over the next socket.
          if (!connected) for (const waiting of this.awaiting.values()) waiting.reject(new ApiError(0, ''));
          this.set({ lost: !connected });
        },
        onUnknownVisitor: () => void this.reinit(),
      });
      this.socket.start();
    }
    void this.pump();
  }

  private socketUrl(): string {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${location.host}/ws/visitor?YQToken=${encodeURIComponent(this.token)}`;
  }

  private async reinit(): Promise<void> {
    if (this.reinits >= MAX_REINITS) return;
    await new Promise((resolve) => setTimeout(resolve, backoffDelay(this.reinits++, RESEND)));
    storage(this.tokenKey, null);
    this.options.hostToken = undefined;
    this.socket?.stop();
    this.socket = null;
    await this.init();
  }

  /**
   * `Parley('identify', …)` (CONTRACT §13). The server may answer another credential (the user's visitor,
   * shared by each of their browsers): the window then starts again as that visitor, with its history.
   */
  async identify(data: unknown): Promise<void> {
    await this.tell('/api/visitor/identify', data);
  }

  /** `Parley('setAttributes', …)`: attributes, name, email and phone, without identity. */
  async setAttributes(data: unknown): Promise<void> {
    await this.tell('/api/visitor/attributes', data);
  }

  private tell(path: string, data: unknown): Promise<void> {
    if (!this.token || typeof data !== 'object' || data === null) return this.telling;
    // Messages typed meanwhile wait: they go out as the visitor the site says this is.
    this.telling = this.telling.then(async () => {
      try {
        const answer = await this.options.api.post<{ YQToken: string }>(path, { ...data, YQToken: this.token });
        if (answer.YQToken !== this.token) await this.restart(answer.YQToken, true);
      } catch (error) {
        // For the site's developer: a wrong hash (401) or a field the server refused (400) is theirs to fix.
        console.warn('Parley:', error instanceof Error ? error.message : error);
      }
    });
    return this.telling;
  }

  /** `Parley('reset')` at the site's logout: this browser forgets its visitor and starts anonymous. */
  async reset(): Promise<void> {
    await this.telling;
    await this.restart(null, false);
  }

  /**
   * Starts again as the visitor of `token` (null: a new anonymous one). What is still being sent goes as
   * that visitor when `keep` (the same person, now identified), and is dropped at a reset.
   */
  private async restart(token: string | null, keep: boolean): Promise<void> {
    storage(this.tokenKey, token);
    storage(`${this.tokenKey}:preChat`, null);
    this.options.hostToken = undefined;
    this.socket?.stop();
    this.socket = null;
    if (!keep) {
      this.outbox = [];
      this.failed.clear();
    }
    this.set({
      items: keep ? this.state.items.filter((item) => item.seq === 0) : [],
      preChatDone: false,
      rating: null,
      unread: 0,
      agent: null,
      robot: null,
      position: null,
    });
    this.options.onUnread(0);
    await this.init();
  }

  /**
   * Whether the visitor can see the window now: unread counting stops and restarts with it. `since` is
   * when the host page made it so: a message received after a close the frame heard of late was not seen.
   */
  setVisible(visible: boolean, since?: number): void {
    if (visible === this.visible) return;
    const missed = !visible && since !== undefined ? this.shownLately.filter((shown) => shown.at >= since) : [];
    this.visible = visible;
    this.shownLately = [];
    if (visible && this.state.unread > 0) {
      this.set({ unread: 0 });
      this.options.onUnread(0);
    }
    const newest = missed.at(-1)?.message;
    if (newest) {
      const unread = this.state.unread + missed.length;
      this.set({ unread });
      this.options.onUnread(unread, previewOf(newest));
    }
  }

  reportPage(url: string, title: string): void {
    if (!this.token) return;
    this.options.api.post('/api/visitor/visit', { YQToken: this.token, url, title }).catch(() => {
      // A lost page view is not worth bothering the visitor about.
    });
  }

  private onFrame(frame: Frame): void {
    if (isFrame(frame, SocketCode.sent)) {
      if (isMessage(frame.data)) this.awaiting.get(frame.data.onlyID)?.resolve(frame.data);
    } else if (isFrame(frame, SocketCode.sendRefused)) {
      this.awaiting.get(frame.data.onlyID)?.reject(new ApiError(frame.data.status, frame.data.msg));
    } else if (isFrame(frame, SocketCode.accepted)) {
      const { nickname, avatar } = frame.data;
      this.set({ conversation: 'current', agent: { name: nickname, avatar }, position: null });
    } else if (isFrame(frame, SocketCode.waiting)) {
      this.set({ conversation: 'wait', position: frame.data.position });
    } else if (isFrame(frame, SocketCode.ended)) {
      const ask = frame.data.rate && this.state.settings?.rating === true;
      this.set({
        conversation: 'end',
        position: null,
        rating: ask ? { afterSeq: lastSeq(this.state.items), done: false } : this.state.rating,
      });
    } else if (isFrame(frame, SocketCode.robot)) {
      const { name, avatar } = frame.data;
      this.set({ conversation: 'robot', robot: { name, avatar } });
    } else if (isFrame(frame, SocketCode.serviceMessage) || isFrame(frame, SocketCode.visitorMessage) || isFrame(frame, SocketCode.tip)) {
      if (isMessage(frame.data)) this.receive([frame.data]);
    } else if (isFrame(frame, SocketCode.withdrawn)) {
      this.set({ items: markWithdrawn(this.state.items, frame.data.onlyID) });
    } else if (isFrame(frame, SocketCode.settings)) {
      // Applied at once: the window redraws, and the loader is told so the launcher does too.
      const settings = normalizeSettings(frame.data);
      this.set({ settings });
      this.options.onSettings(settings);
    }
  }

  /** Merges what arrived, counts what the visitor has not seen, and catches up when seqs were skipped. */
  private receive(messages: readonly Message[]): void {
    const held = new Set(this.state.items.filter((item) => item.seq > 0).map((item) => item.onlyID));
    const before = lastSeq(this.state.items);
    const fresh = messages.filter((message) => !held.has(message.onlyID) && (message.role === 'service' || message.role === 'robot'));
    const items = mergeMessages(this.state.items, messages);
    const unread = this.visible ? 0 : this.state.unread + fresh.length;
    this.set({ items, unread });
    if (this.visible && fresh.length > 0) {
      const at = (this.options.now ?? Date.now)();
      this.shownLately = [...this.shownLately, ...fresh.map((message) => ({ at, message }))].slice(-SHOWN_LATELY);
    }
    for (const message of fresh) this.options.onMessage?.(message);
    const newest = fresh.at(-1);
    if (newest && !this.visible) this.options.onUnread(unread, previewOf(newest));
    const highest = messages.reduce((max, message) => Math.max(max, message.seq), 0);
    if (isGap(before, highest) && messages.length === 1) void this.catchUp();
  }

  private async catchUp(): Promise<void> {
    if (this.catchingUp) {
      this.catchUpAgain = true;
      return;
    }
    this.catchingUp = true;
    try {
      do {
        this.catchUpAgain = false;
        for (let page = 0; page < CATCH_UP_PAGES; page++) {
          const after = heldThrough(this.state.items);
          const { list } = await this.options.api.get<{ list: Message[] }>('/api/visitor/messages', {
            YQToken: this.token,
            afterSeq: after,
          });
          const valid = Array.isArray(list) ? list.filter(isMessage) : [];
          if (valid.length === 0) break;
          this.receive(valid);
          if (heldThrough(this.state.items) <= after) break;
        }
      } while (this.catchUpAgain);
    } catch {
      // The next reconnect or gap asks again.
    } finally {
      this.catchingUp = false;
    }
  }

  /**
   * Fetches the page of messages before the oldest held. The visitor API reads forward only
   * (`afterSeq`), so it asks from a page before and keeps what is older than what it has.
   */
  async loadEarlier(): Promise<void> {
    const first = firstSeq(this.state.items);
    if (first <= 1 || this.state.loadingEarlier) return;
    this.set({ loadingEarlier: true });
    try {
      const afterSeq = Math.max(0, first - 1 - EARLIER_PAGE);
      const { list } = await this.options.api.get<{ list: Message[] }>('/api/visitor/messages', { YQToken: this.token, afterSeq });
      const older = Array.isArray(list) ? list.filter(isMessage).filter((message) => message.seq < first) : [];
      this.set({ items: mergeMessages(this.state.items, older) });
    } catch {
      // The control stays; the visitor can ask again.
    } finally {
      this.set({ loadingEarlier: false });
    }
  }

  sendText(text: string): void {
    const trimmed = text.trim();
    if (trimmed === '') return;
    this.typing.reset();
    for (let start = 0; start < trimmed.length; start += MAX_MESSAGE_LENGTH) {
      this.enqueue({ onlyID: newOnlyId(), type: 'text', msg: trimmed.slice(start, start + MAX_MESSAGE_LENGTH), attempts: 0 });
    }
  }

  sendFile(file: File): void {
    const type: MessageType = file.type.startsWith('image/') ? 'image' : 'file';
    const preview = type === 'image' ? URL.createObjectURL(file) : undefined;
    this.enqueue({ onlyID: newOnlyId(), type, msg: '', file, attempts: 0 }, file.name, preview, file.size);
  }

  private enqueue(outgoing: Outgoing, label?: string, preview?: string, size?: number): void {
    this.outbox.push(outgoing);
    const local: ChatItem = {
      id: 0,
      YQToken: this.token,
      seq: 0,
      onlyID: outgoing.onlyID,
      role: 'user',
      type: outgoing.type,
      msg: outgoing.msg || (label ?? ''),
      nickname: '',
      serviceID: null,
      time: new Date().toISOString(),
      withdrawn: false,
      status: 'sending',
      preview,
      size,
    };
    this.set({ items: mergeMessages(this.state.items, [local]) });
    this.saveOutbox();
    void this.pump();
  }

  /** The retry control: sends a failed message now, or wakes the automatic retry at once. */
  retry(onlyID: string): void {
    this.updateLocal(onlyID, { status: 'sending', error: undefined });
    const failed = this.failed.get(onlyID);
    if (failed) {
      this.failed.delete(onlyID);
      failed.attempts = 0;
      this.outbox.push(failed);
      this.saveOutbox();
      void this.pump();
      return;
    }
    const queued = this.outbox.find((item) => item.onlyID === onlyID);
    if (queued) queued.attempts = 0;
    this.wake?.();
  }

  private updateLocal(onlyID: string, patch: Partial<ChatItem>): void {
    this.set({ items: this.state.items.map((item) => (item.onlyID === onlyID && item.seq === 0 ? { ...item, ...patch } : item)) });
  }

  private describe(error: ApiError, uploading: boolean): string {
    if (error.status === 0) return this.options.t('networkError');
    if (uploading && error.status === 404) return this.options.t('uploadMissing');
    return error.message || this.options.t('failed');
  }

  /** Sends the outbox in order, one at a time, so the agent reads messages in the order they were typed. */
  private async pump(): Promise<void> {
    if (this.pumping || !this.token) return;
    this.pumping = true;
    try {
      for (let head = this.outbox[0]; head; head = this.outbox[0]) {
        const uploading = head.file !== undefined && head.msg === '';
        try {
          if (head.file && uploading) {
            const form = new FormData();
            form.append('YQToken', this.token);
            form.append('file', head.file, head.file.name);
            const uploaded = await this.options.api.upload<UploadData>('/api/visitor/upload', form);
            head.msg = uploaded.url;
            this.saveOutbox();
          }
          await this.telling;
          const stored = await this.store(head);
          this.outbox.shift();
          this.saveOutbox();
          if (isMessage(stored)) this.receive([stored]);
          else this.updateLocal(head.onlyID, { status: undefined });
        } catch (caught) {
          const error = caught instanceof ApiError ? caught : new ApiError(0, '');
          this.updateLocal(head.onlyID, { status: 'failed', error: this.describe(error, uploading) });
          if (error.permanent) {
            this.outbox.shift();
            this.failed.set(head.onlyID, head);
            this.saveOutbox();
            continue;
          }
          await this.sleep(backoffDelay(head.attempts++, RESEND));
          if (this.outbox[0] === head) this.updateLocal(head.onlyID, { status: 'sending' });
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Stores one message: over the socket while it is open (8100, answered 8101 once stored or 8102), over
   * HTTP otherwise, or when the socket drops or stays silent before answering. Both are idempotent on
   * onlyID, so a message sent both ways is stored once.
   */
  private async store(head: Outgoing): Promise<Message> {
    const data = { msg: head.msg, onlyID: head.onlyID, type: head.type };
    if (this.socketOpen) {
      const answer = new Promise<Message>((resolve, reject) => {
        const timer = setTimeout(() => reject(new ApiError(0, '')), SOCKET_ANSWER_MS);
        const settle = () => {
          clearTimeout(timer);
          this.awaiting.delete(head.onlyID);
        };
        this.awaiting.set(head.onlyID, {
          resolve: (message) => {
            settle();
            resolve(message);
          },
          reject: (error) => {
            settle();
            reject(error);
          },
        });
      });
      if (this.socket?.send({ code: SocketCode.send, data })) {
        try {
          return await answer;
        } catch (error) {
          // A refusal is the server's answer; only silence or a dropped socket falls back to HTTP.
          if (error instanceof ApiError && error.status !== 0) throw error;
        }
      } else {
        this.awaiting.get(head.onlyID)?.reject(new ApiError(0, ''));
        await answer.catch(() => undefined);
      }
    }
    return this.options.api.post<Message>('/api/visitor/message', { YQToken: this.token, ...data });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** Unsent text (and files already uploaded) survive a reload; the server drops duplicates by onlyID. */
  private saveOutbox(): void {
    if (!this.token) return;
    const keep = this.outbox.filter((item) => item.msg !== '').map(({ onlyID, type, msg }) => ({ onlyID, type, msg }));
    storage(this.outboxKey, keep.length > 0 ? JSON.stringify(keep) : null);
  }

  private restoreOutbox(): void {
    let saved: unknown;
    try {
      saved = JSON.parse(storage(this.outboxKey) ?? '[]');
    } catch {
      return;
    }
    if (!Array.isArray(saved)) return;
    const stored = new Set(this.state.items.filter((item) => item.seq > 0).map((item) => item.onlyID));
    const queued = new Set(this.outbox.map((item) => item.onlyID));
    for (const entry of saved) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { onlyID, type, msg } = entry as Record<string, unknown>;
      if (typeof onlyID !== 'string' || typeof msg !== 'string' || stored.has(onlyID) || queued.has(onlyID)) continue;
      const kind: MessageType = type === 'image' || type === 'file' ? type : 'text';
      this.outbox.push({ onlyID, type: kind, msg, attempts: 0 });
      this.set({
        items: mergeMessages(this.state.items, [
          {
            id: 0,
            YQToken: this.token,
            seq: 0,
            onlyID,
            role: 'user',
            type: kind,
            msg,
            nickname: '',
            serviceID: null,
            time: new Date().toISOString(),
            withdrawn: false,
            status: 'sending',
          },
        ]),
      });
    }
    this.saveOutbox();
  }

  async leaveLetter(values: LetterValues, fallbackName: string): Promise<void> {
    const shown = this.state.settings?.letter.fields ?? [];
    const pick = (field: 'phone' | 'email') => (shown.includes(field) && values[field].trim() ? values[field].trim() : undefined);
    // The server requires a name; a form configured without that field still sends one.
    const name = shown.includes('name') && values.name.trim() ? values.name.trim() : fallbackName;
    await this.options.api.post('/api/visitor/letter', {
      YQToken: this.token || undefined,
      name,
      phone: pick('phone'),
      email: pick('email'),
      content: values.content.trim(),
    });
  }

  /** The pre-chat form's answers, kept with the visitor: agents see the name, phone and email they gave. */
  async submitPreChat(values: LetterValues): Promise<void> {
    const asked = this.state.settings?.preChat.fields ?? [];
    const pick = (field: 'name' | 'phone' | 'email') => (asked.includes(field) && values[field].trim() ? values[field].trim() : undefined);
    const answer = await this.options.api.post<{ transcript?: TranscriptOffer } | null>('/api/visitor/contact', {
      YQToken: this.token,
      name: pick('name'),
      phone: pick('phone'),
      email: pick('email'),
    });
    storage(`${this.tokenKey}:preChat`, '1');
    const transcript = answer?.transcript;
    this.set({ preChatDone: true, transcript: transcript && transcript !== 'none' ? transcript : null });
  }

  dismissTranscript(): void {
    this.set({ transcript: null });
  }

  /** "Talk to a person": the robot hands the visitor over; 2000 or 2001 follows on the socket. */
  async handover(): Promise<void> {
    const { state } = await this.options.api.post<{ state: VisitorState }>('/api/visitor/handover', { YQToken: this.token });
    // The socket's frame may have come first; it knows at least as much.
    if (this.state.conversation === 'robot') this.set({ conversation: state });
  }

  async rate(score: number, comment: string): Promise<void> {
    await this.options.api.post('/api/visitor/rate', { YQToken: this.token, score, comment: comment.trim() || undefined });
    if (this.state.rating) this.set({ rating: { ...this.state.rating, done: true } });
  }
}
