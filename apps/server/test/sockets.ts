import WebSocket from 'ws';

/** A socket client for tests that keeps every frame it receives, so nothing races the assertions. */
export class TestSocket {
  readonly frames: unknown[] = [];
  readonly texts: string[] = [];
  closeCode: number | undefined;
  /** When the close arrived (Date.now()), to tell how long the server kept the socket. */
  closedAt: number | undefined;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const text = raw.toString();
      this.texts.push(text);
      if (text !== 'Y') this.frames.push(JSON.parse(text));
      this.wake();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.closedAt = Date.now();
      this.wake();
    });
  }

  static open(url: string, options?: WebSocket.ClientOptions): Promise<TestSocket> {
    const ws = new WebSocket(url, options);
    const socket = new TestSocket(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(socket));
      ws.once('error', reject);
      // A socket refused after the upgrade still opens first; closes before open are errors.
      ws.once('close', () => resolve(socket));
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once `check` holds, or rejects after `ms`. */
  async until<T>(check: () => T | undefined | false, ms = 8000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = check();
      if (value) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; frames so far: ${JSON.stringify(this.frames)}; close ${this.closeCode}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  frame(code: string, ms?: number): Promise<{ code: string; recipient?: string; data?: unknown }> {
    return this.until(() => this.frames.find((frame) => (frame as { code: string }).code === code) as { code: string } | undefined, ms);
  }

  closed(ms?: number): Promise<number> {
    return this.until(() => this.closeCode, ms);
  }

  /**
   * Sends a heartbeat and waits for its echo (or the close). The server writes a socket's frames in order,
   * so whatever it had already sent this socket is in by then: "nothing arrived" can be asserted at once.
   */
  async barrier(ms?: number): Promise<void> {
    const echoes = () => this.texts.filter((text) => text === 'Y').length;
    const before = echoes();
    this.send('Y');
    await this.until(() => this.closeCode !== undefined || echoes() > before, ms);
  }

  send(data: string | object): void {
    this.ws.send(typeof data === 'string' ? data : JSON.stringify(data));
  }

  close(): void {
    this.ws.close();
  }
}
