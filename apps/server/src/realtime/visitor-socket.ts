import { CloseCode, type Message, SocketCode, typingData, visitorSendData, yqToken } from '@parley/protocol';
import type { FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { type Lang, pickLang } from '../lib/i18n.js';
import type { Bus } from './bus.js';
import { holdFrames, onFrames, refuse, sendError, sendText } from './frames.js';
import type { Liveness } from './liveness.js';
import type { SocketRequest, SocketRoutes } from './socket-routes.js';
import { SocketSends } from './socket-send.js';
import { TypingThrottle } from './typing.js';
import type { SharedVisitorPresence } from './visitor-presence.js';

/** A reload or a page change closes the socket for a moment; only a longer silence means "left". */
export const PRESENCE_GRACE_MS = 4000;
const MAX_VISITOR_FRAME = 16 * 1024;

/** The visitors' sockets of this process (several per visitor: one per tab), and their presence. */
export class VisitorSockets {
  private readonly byToken = new Map<string, Set<WebSocket>>();
  /** The language each socket's widget speaks, for what is worded per visitor (its settings). */
  private readonly langs = new WeakMap<WebSocket, Lang>();
  private readonly leaving = new Map<string, NodeJS.Timeout>();
  /** Visitors whose leaving could not be checked (Redis away): checked again when it returns. */
  private readonly unchecked = new Set<string>();

  /**
   * `gone` is told when a visitor has left. `shared` is given with several processes (Redis): a visitor
   * leaves only when no process holds a socket of it; `onError` hears its failures.
   */
  constructor(
    bus: Bus,
    private readonly gone: (token: string) => void,
    readonly shared: SharedVisitorPresence | null = null,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly graceMs = PRESENCE_GRACE_MS,
  ) {
    bus.subscribe((event) => {
      if (event.type === 'visitor.erased') {
        // Its credential names nobody any more: the widget hears so, as for any unknown visitor.
        for (const socket of this.byToken.get(event.token) ?? []) socket.close(CloseCode.badToken, 'unknown visitor');
        return;
      }
      if (event.type !== 'frame.visitor') return;
      const sockets = this.byToken.get(event.token);
      if (!sockets) return;
      const text = JSON.stringify(event.frame);
      for (const socket of sockets) sendText(socket, text);
    });
    shared?.onReconnect(() => this.reannounce());
  }

  /** Redis came back, perhaps empty: records again what this process holds, and checks who left meanwhile. */
  private reannounce(): void {
    for (const [key, set] of this.byToken) this.share(key, set.size);
    const unchecked = [...this.unchecked];
    this.unchecked.clear();
    for (const key of unchecked) {
      if (this.byToken.has(key) || this.leaving.has(key)) continue;
      this.shared?.held(key, 0).then(() => this.checkLeft(key), this.onError);
    }
  }

  /** Reports the visitor gone unless a socket of it is held here or by another live process. */
  private checkLeft(token: string): void {
    if (this.byToken.has(token)) return;
    if (!this.shared) {
      this.gone(token);
      return;
    }
    this.shared.heldElsewhere(token).then(
      (elsewhere) => {
        if (!elsewhere && !this.byToken.has(token)) this.gone(token);
      },
      (error: unknown) => {
        this.unchecked.add(token);
        this.onError(error);
      },
    );
  }

  add(token: string, socket: WebSocket, lang: Lang = 'zh'): void {
    this.langs.set(socket, lang);
    const timer = this.leaving.get(token);
    if (timer) {
      clearTimeout(timer);
      this.leaving.delete(token);
    }
    let set = this.byToken.get(token);
    if (!set) {
      set = new Set();
      this.byToken.set(token, set);
    }
    this.unchecked.delete(token);
    set.add(socket);
    this.share(token, set.size);
  }

  private share(token: string, sockets: number): void {
    this.shared?.held(token, sockets).catch(this.onError);
  }

  /** Reports the visitor gone once it has had no socket here (nor elsewhere) for the grace period. */
  remove(token: string, socket: WebSocket): void {
    const set = this.byToken.get(token);
    if (!set?.delete(socket)) return;
    this.share(token, set.size);
    if (set.size > 0) return;
    this.byToken.delete(token);
    this.leaveLater(token, this.graceMs);
  }

  /**
   * Decides after `delayMs` whether a visitor without a socket here has left; also how a report of
   * leaving that failed (the database was away) is tried again. A socket of the visitor cancels it.
   */
  leaveLater(token: string, delayMs: number): void {
    clearTimeout(this.leaving.get(token));
    const timer = setTimeout(() => {
      this.leaving.delete(token);
      this.checkLeft(token);
    }, delayMs);
    timer.unref();
    this.leaving.set(token, timer);
  }

  /** The public ids of the visitors with a socket on this process. */
  tokens(): string[] {
    return [...this.byToken.keys()];
  }

  /** Sends every visitor socket of this process the text made for its visitor and language. */
  toEveryone(textFor: (lang: Lang, token: string) => string): void {
    for (const [token, set] of this.byToken) {
      for (const socket of set) sendText(socket, textFor(this.langs.get(socket) ?? 'zh', token));
    }
  }

  count(): number {
    let total = 0;
    for (const set of this.byToken.values()) total += set.size;
    return total;
  }

  stop(): void {
    for (const timer of this.leaving.values()) clearTimeout(timer);
    this.leaving.clear();
  }
}

/** What the visitor socket asks of the chat modules. */
export interface VisitorSocketActions {
  /** The public id of the visitor with this credential, which its sockets are kept under. */
  publicIdOf(credential: string): Promise<string | undefined>;
  online(publicId: string): Promise<void>;
  typing(publicId: string, text: string): Promise<void>;
  /** Whether the page the socket comes from may embed the widget. */
  originAllowed(req: FastifyRequest): boolean;
  /** A message sent over the socket (8100), stored as `POST /api/visitor/message` stores it. */
  send(credential: string, input: { msg: string; onlyID: string; type?: Message['type'] | undefined }): Promise<Message>;
  /** Counts a socket's sends against the HTTP call's limits (per address and per visitor); each throws 429 beyond them. */
  limiter(address: string, credential: string): () => Promise<void>;
}

/** The widget names its language in the socket's query; the browser's own languages otherwise. */
function socketLang(req: SocketRequest): Lang {
  return pickLang(req.query.lang ?? req.acceptLanguage);
}

export function registerVisitorSocket(routes: SocketRoutes, chat: VisitorSocketActions, sockets: VisitorSockets, liveness: Liveness): void {
  const { log } = routes;
  const typing = new TypingThrottle((token, text) => {
    chat.typing(token, text).catch((error: unknown) => log.error({ err: error }, 'typing relay failed'));
  });
  routes.onClose(() => typing.stop());
  routes.add(
    '/ws/visitor',
    {
      // Refused before the upgrade: a site that may not embed the widget never gets a socket.
      preValidation: async (req, reply) => {
        if (!chat.originAllowed(req)) await reply.code(403).send();
      },
    },
    async (socket, req) => {
      holdFrames(socket);
      const credential = yqToken.safeParse(req.query.YQToken);
      // Sockets are kept under the public id: past this point the credential is not needed.
      let publicId: string | undefined;
      try {
        publicId = credential.success ? await chat.publicIdOf(credential.data) : undefined;
      } catch (error) {
        // A fault of the server (the database is away), not an unknown visitor: the widget retries later
        // instead of starting over as a new visitor.
        log.warn({ err: error }, 'visitor socket lookup failed');
        refuse(socket, CloseCode.serverError, 'server error');
        return;
      }
      if (!publicId) {
        refuse(socket, CloseCode.badToken, 'unknown visitor');
        return;
      }
      const lang = socketLang(req);
      sockets.add(publicId, socket, lang);
      liveness.track(socket);
      socket.on('close', () => sockets.remove(publicId, socket));
      typing.opened(publicId);
      socket.on('close', () => typing.closed(publicId));
      // The credential stays with this socket only to store what it sends, as the HTTP send would.
      const key = credential.data as string;
      const { ip } = req;
      const sends = new SocketSends(
        socket,
        lang,
        visitorSendData,
        (data) => chat.send(key, data),
        (error) => log.error({ err: error }, 'visitor socket send failed'),
        chat.limiter(ip, key),
      );
      onFrames(socket, liveness, MAX_VISITOR_FRAME, (frame) => {
        if (frame.code === SocketCode.send) return sends.offer(frame.data);
        if (frame.code !== SocketCode.typing) return sendError(socket, 'unknown frame');
        const data = typingData.safeParse(frame.data);
        if (!data.success) return sendError(socket, 'typing data is { text }');
        typing.offer(publicId, data.data.text);
      });
      try {
        await chat.online(publicId);
      } catch (error) {
        // Presence could not be recorded: the widget's reconnection records it once the server can.
        log.warn({ err: error }, 'visitor presence failed');
        socket.close(CloseCode.serverError, 'server error');
      }
    },
  );
}
