import { CloseCode, SOCKET_IDLE_MS } from '@parley/protocol';
import type { WebSocket } from 'ws';

/**
 * Closes sockets that stay silent longer than SOCKET_IDLE_MS. One sweep timer for all sockets keeps
 * the cost flat however many are open.
 */
export class Liveness {
  private readonly lastSeen = new Map<WebSocket, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly idleMs = SOCKET_IDLE_MS,
    /** Told how many sockets a sweep closed as silent (the server logs it, with the close code). */
    private readonly onIdle: (count: number) => void = () => undefined,
  ) {
    this.timer = setInterval(() => this.sweep(), Math.min(1000, idleMs / 3));
    this.timer.unref();
  }

  track(socket: WebSocket): void {
    this.lastSeen.set(socket, Date.now());
    socket.on('close', () => this.lastSeen.delete(socket));
  }

  touch(socket: WebSocket): void {
    if (this.lastSeen.has(socket)) this.lastSeen.set(socket, Date.now());
  }

  private sweep(): void {
    // A loop turn runs its timers before it reads sockets: after the loop was held (a heavy request, a
    // long collection), the heartbeats that came meanwhile are still unread here, and every socket would
    // look silent. They are judged once the loop has read what waits (setImmediate runs after a read).
    // The loop may also be held between now and that judgement (by a callback of the same turn): what
    // arrived meanwhile is read only in the next turn. So the silence is measured up to now, not up to
    // the judgement: everything that arrived before now has been read by then.
    const sweptAt = Date.now();
    setImmediate(() => this.judge(sweptAt - this.idleMs));
  }

  private judge(deadline: number): void {
    let closed = 0;
    for (const [socket, seen] of this.lastSeen) {
      if (seen < deadline) {
        this.lastSeen.delete(socket);
        socket.close(CloseCode.idle, 'idle');
        closed += 1;
      }
    }
    if (closed > 0) this.onIdle(closed);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
