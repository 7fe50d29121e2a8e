import { CloseCode, SOCKET_IDLE_MS } from '@parley/protocol';
import type { WebSocket } from 'ws';

/**
 * Closes sockets that stay silent longer than SOCKET_IDLE_MS. One sweep timer for all sockets keeps
 * the cost flat however many are open.
 */
export class Liveness {
  private readonly lastSeen = new Map<WebSocket, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly idleMs = SOCKET_IDLE_MS) {
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
    const deadline = Date.now() - this.idleMs;
    for (const [socket, seen] of this.lastSeen) {
      if (seen < deadline) {
        this.lastSeen.delete(socket);
        socket.close(CloseCode.idle, 'idle');
      }
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
