import { CloseCode, type Frame, HEARTBEAT, HEARTBEAT_MS, SOCKET_IDLE_MS } from '@parley/protocol';
import { backoffDelay, RECONNECT } from './backoff';

export interface SocketHandlers {
  onFrame: (frame: Frame) => void;
  /** Every open; `again` is true after the first, when a catch-up is due. */
  onOpen: (again: boolean) => void;
  onConnectedChange: (connected: boolean) => void;
  /** The server does not know this YQToken (4401): the visitor must be initialised again. */
  onUnknownVisitor: () => void;
}

/**
 * The visitor socket: heartbeat every HEARTBEAT_MS, reconnection with backoff, and a watchdog that
 * drops a socket from which nothing (not even the heartbeat's echo) has come for SOCKET_IDLE_MS, since a
 * half-open connection otherwise looks alive forever.
 */
export class VisitorSocket {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private opened = false;
  private stopped = false;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private lastHeard = 0;

  constructor(
    private readonly url: () => string,
    private readonly handlers: SocketHandlers,
  ) {}

  start(): void {
    this.stopped = false;
    addEventListener('online', this.now);
    document.addEventListener('visibilitychange', this.now);
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    removeEventListener('online', this.now);
    document.removeEventListener('visibilitychange', this.now);
    clearTimeout(this.retry);
    this.drop();
  }

  send(frame: Frame): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  /** Reconnects at once when the network comes back or the page is shown again, skipping the wait. */
  private readonly now = () => {
    if (this.stopped || this.socket || document.visibilityState === 'hidden') return;
    clearTimeout(this.retry);
    this.attempt = 0;
    this.connect();
  };

  private connect(): void {
    this.retry = undefined;
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.url());
    } catch {
      this.schedule();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.lastHeard = Date.now();
      socket.send(HEARTBEAT);
      this.heartbeat = setInterval(() => {
        if (Date.now() - this.lastHeard > SOCKET_IDLE_MS) {
          socket.close();
          this.closed(socket, 1006);
          return;
        }
        socket.send(HEARTBEAT);
      }, HEARTBEAT_MS);
      this.handlers.onConnectedChange(true);
      this.handlers.onOpen(this.opened);
      this.opened = true;
    };
    socket.onmessage = (event: MessageEvent) => {
      this.lastHeard = Date.now();
      if (typeof event.data !== 'string' || event.data === HEARTBEAT) return;
      try {
        const frame: unknown = JSON.parse(event.data);
        if (typeof frame === 'object' && frame !== null && 'code' in frame && typeof frame.code === 'string')
          this.handlers.onFrame(frame as Frame);
      } catch {
        // Not a frame of ours; the protocol has nothing else, so it is dropped.
      }
    };
    socket.onclose = (event) => this.closed(socket, event.code);
  }

  private closed(socket: WebSocket, code: number): void {
    if (this.socket !== socket) return;
    this.drop();
    this.handlers.onConnectedChange(false);
    if (this.stopped) return;
    if (code === CloseCode.badToken) this.handlers.onUnknownVisitor();
    else this.schedule();
  }

  private drop(): void {
    clearInterval(this.heartbeat);
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onopen = socket.onmessage = socket.onclose = null;
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close();
    }
  }

  private schedule(): void {
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.connect(), backoffDelay(this.attempt++, RECONNECT));
  }
}
