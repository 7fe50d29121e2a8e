import { CloseCode, SocketCode, typingData, yqToken } from '@parley/protocol';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { ChatService } from '../modules/chat/service.js';
import type { Bus } from './bus.js';
import { onFrames, sendError, sendText } from './frames.js';
import type { Liveness } from './liveness.js';
import { TypingThrottle } from './typing.js';
import type { SharedVisitorPresence } from './visitor-presence.js';

/** A reload or a page change closes the socket for a moment; only a longer silence means "left". */
export const PRESENCE_GRACE_MS = 4000;
const MAX_VISITOR_FRAME = 16 * 1024;

/** The visitors' sockets of this process (several per visitor: one per tab), and their presence. */
export class VisitorSockets {
  private readonly byToken = new Map<string, Set<WebSocket>>();
  private readonly leaving = new Map<string, NodeJS.Timeout>();

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
      if (event.type !== 'frame.visitor') return;
      const sockets = this.byToken.get(event.token);
      if (!sockets) return;
      const text = JSON.stringify(event.frame);
      for (const socket of sockets) sendText(socket, text);
    });
  }

  add(token: string, socket: WebSocket): void {
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
    const timer = setTimeout(() => {
      this.leaving.delete(token);
      if (this.byToken.has(token)) return;
      if (!this.shared) return this.gone(token);
      this.shared.heldElsewhere(token).then((elsewhere) => {
        if (!elsewhere && !this.byToken.has(token)) this.gone(token);
      }, this.onError);
    }, this.graceMs);
    timer.unref();
    this.leaving.set(token, timer);
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

export function registerVisitorSocket(app: FastifyInstance, chat: ChatService, sockets: VisitorSockets, liveness: Liveness): void {
  const typing = new TypingThrottle((token, text) => {
    chat.typing(token, text).catch((error: unknown) => app.log.error({ err: error }, 'typing relay failed'));
  });
  app.addHook('onClose', async () => typing.stop());
  app.get('/ws/visitor', { websocket: true }, async (socket, req) => {
    const parsed = yqToken.safeParse((req.query as Record<string, unknown>).YQToken);
    if (!parsed.success || !(await chat.visitorExists(parsed.data))) {
      socket.close(CloseCode.badToken, 'unknown visitor');
      return;
    }
    const token = parsed.data;
    sockets.add(token, socket);
    liveness.track(socket);
    socket.on('close', () => sockets.remove(token, socket));
    typing.opened(token);
    socket.on('close', () => typing.closed(token));
    onFrames(socket, liveness, MAX_VISITOR_FRAME, (frame) => {
      if (frame.code !== SocketCode.typing) return sendError(socket, 'unknown frame');
      const data = typingData.safeParse(frame.data);
      if (!data.success) return sendError(socket, 'typing data is { text }');
      typing.offer(token, data.data.text);
    });
    await chat.visitorOnline(token);
  });
}
