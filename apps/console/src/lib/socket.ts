import { CloseCode, type Frame, HEARTBEAT, HEARTBEAT_MS, SOCKET_IDLE_MS, SocketCode } from '@parley/protocol';

/** Seed §9: while a socket is still connecting, sending waits and retries this often. */
export const SOCKET_RETRY_MS = 1000;
/**
 * Reconnections after failures double their wait from SOCKET_RETRY_MS up to this: a few agents' consoles
 * cost a failing server little, and one back online reconnects within seconds.
 */
export const SOCKET_MAX_RETRY_MS = 5000;

/**
 * The close codes that speak of the session (bad, expired or revoked token): the HTTP client decides
 * whether to refresh or sign out. Any other code (1011 server fault, 1013, 1006 …) is the server's or the
 * network's trouble: the socket only reconnects, with backoff.
 */
export function isSessionClose(code: number): boolean {
  return code === CloseCode.badToken || code === CloseCode.expiredToken || code === CloseCode.revoked;
}

export type SocketStatus = 'connecting' | 'open' | 'closed';

/** The part of the browser WebSocket this client uses, so tests can hand in their own. */
export interface SocketLike {
  readyState: number;
  onopen: ((event: Event) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  send(data: string): void;
  close(code?: number): void;
}

export interface AgentSocketOptions {
  /** ws:// or wss:// address, token included; asked for again at each (re)connection since the token may have been refreshed. */
  url(): string;
  onFrame(frame: Frame): void;
  /** Called after every open but the first: whatever happened meanwhile must be read again. */
  onReconnect?(): void;
  onStatus?(status: SocketStatus): void;
  /** The server's close code (4401 bad token, 4402 expired, …), before reconnecting. */
  onClose?(code: number): void;
  create?(url: string): SocketLike;
  retryMs?: number;
  maxRetryMs?: number;
  heartbeatMs?: number;
  /** A socket from which nothing, not even the heartbeat's echo, has come for this long is given up. */
  idleMs?: number;
  /**
   * Where the browser says the network went away and came back (`offline` / `online`): the window by
   * default. A dropped network rarely closes a socket, so without this the console would say "connected"
   * until the idle watchdog gave up.
   */
  network?: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
}

const OPEN = 1;

/**
 * The agent's one live connection (seed §4 "Socket"): it reconnects after any close unless it is being
 * closed on purpose, sends the heartbeat on open and every 5000 ms, ignores the server's heartbeat, and
 * holds back what is sent while connecting, retrying every second. A half-open connection looks alive
 * forever, so it is also given up when the browser goes offline or when nothing has come from the server
 * for `idleMs`; coming back online reconnects at once rather than after the backoff's wait.
 */
export class AgentSocket {
  private socket: SocketLike | null = null;
  private closing = false;
  private opened = false;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly retryMs: number;
  private readonly maxRetryMs: number;
  /**
   * Reconnections since the server last greeted: a server that keeps failing is asked less and less
   * often. Counted from the greeting, not the open, since a server fault (1011) closes after the open.
   */
  private failures = 0;
  private readonly heartbeatMs: number;
  private readonly idleMs: number;
  private readonly network: AgentSocketOptions['network'];
  private lastHeard = 0;

  constructor(private readonly options: AgentSocketOptions) {
    this.retryMs = options.retryMs ?? SOCKET_RETRY_MS;
    this.maxRetryMs = options.maxRetryMs ?? SOCKET_MAX_RETRY_MS;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.idleMs = options.idleMs ?? SOCKET_IDLE_MS;
    this.network = options.network ?? (typeof window === 'undefined' ? undefined : window);
  }

  get connected(): boolean {
    return this.socket?.readyState === OPEN;
  }

  open(): void {
    // The same listener added twice is added once.
    this.network?.addEventListener('offline', this.offline);
    this.network?.addEventListener('online', this.online);
    this.closing = false;
    if (this.socket) return;
    this.connect();
  }

  /** The network went away: the socket is given up now, and its sends go another way. */
  private readonly offline = () => {
    if (this.socket) this.abandon(this.socket);
  };

  /**
   * The network is back: reconnect now, not after the backoff's wait. A socket still connecting was
   * begun while offline and would fail; it is replaced.
   */
  private readonly online = () => {
    if (this.closing || this.connected) return;
    this.letGo();
    clearTimeout(this.reconnectTimer);
    this.failures = 0;
    this.connect();
  };

  private connect(): void {
    this.options.onStatus?.('connecting');
    let socket: SocketLike;
    try {
      socket = this.options.create ? this.options.create(this.options.url()) : new WebSocket(this.options.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.options.onStatus?.('open');
      this.lastHeard = Date.now();
      this.sendRaw(HEARTBEAT);
      clearInterval(this.heartbeat);
      this.heartbeat = setInterval(() => {
        if (Date.now() - this.lastHeard > this.idleMs) this.abandon(socket);
        else this.sendRaw(HEARTBEAT);
      }, this.heartbeatMs);
      if (this.opened) this.options.onReconnect?.();
      this.opened = true;
    };
    socket.onmessage = (event) => {
      this.lastHeard = Date.now();
      if (typeof event.data !== 'string' || event.data === HEARTBEAT) return;
      let frame: unknown;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (typeof frame !== 'object' || frame === null || typeof (frame as Frame).code !== 'string') return;
      if ((frame as Frame).code === SocketCode.hello) this.failures = 0;
      this.options.onFrame(frame as Frame);
    };
    // An error is always followed by a close; the close decides what happens next.
    socket.onerror = () => undefined;
    socket.onclose = (event) => {
      clearInterval(this.heartbeat);
      if (this.socket === socket) this.socket = null;
      this.options.onStatus?.('closed');
      this.options.onClose?.(event.code);
      if (!this.closing) this.scheduleReconnect();
    };
  }

  /**
   * Gives up a socket that is open in name only: its close handshake may never finish, so it is not
   * waited for; the status says closed now and a new socket is on its way.
   */
  private abandon(socket: SocketLike): void {
    if (this.socket !== socket) return;
    this.letGo();
    this.options.onStatus?.('closed');
    if (!this.closing) this.scheduleReconnect();
  }

  /** Lets go of the current socket, if any: closed without listening for its close, heartbeat stopped. */
  private letGo(): void {
    const socket = this.socket;
    if (!socket) return;
    socket.onopen = socket.onmessage = socket.onclose = null;
    socket.close();
    clearInterval(this.heartbeat);
    this.socket = null;
  }

  private scheduleReconnect(): void {
    clearTimeout(this.reconnectTimer);
    const delay = Math.min(this.maxRetryMs, this.retryMs * 2 ** Math.min(this.failures, 30));
    this.failures += 1;
    this.reconnectTimer = setTimeout(() => {
      if (!this.closing && !this.socket) this.connect();
    }, delay);
  }

  private sendRaw(text: string): void {
    if (this.socket?.readyState === OPEN) this.socket.send(text);
  }

  /** Sends a frame now, or once the socket is open (checked every second); dropped when closing. */
  send(frame: Frame | Record<string, unknown>): void {
    const text = JSON.stringify(frame);
    const attempt = () => {
      if (this.closing) return;
      if (this.socket?.readyState === OPEN) this.socket.send(text);
      else setTimeout(attempt, this.retryMs);
    };
    attempt();
  }

  /** Closes for good: no reconnection, no heartbeat. */
  close(): void {
    this.network?.removeEventListener('offline', this.offline);
    this.network?.removeEventListener('online', this.online);
    this.closing = true;
    this.opened = false;
    this.failures = 0;
    clearInterval(this.heartbeat);
    clearTimeout(this.reconnectTimer);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000);
  }
}

/** The agent socket's address on the server this page came from. */
export function agentSocketUrl(token: string, location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ws/agent?token=${encodeURIComponent(token)}`;
}
