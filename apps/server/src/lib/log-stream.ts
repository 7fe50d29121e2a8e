import { write } from 'node:fs';

/**
 * Where the log goes: a file descriptor (stdout), written in the background and never waited on.
 * pino's default destination flushes synchronously when the process exits and retries a failed write
 * for ever, so a server whose log reader went away (a broken pipe, or a pipe nobody reads any more)
 * could never stop. This one drops lines instead: all of them once a write fails, and new ones while
 * more than `maxQueuedBytes` wait; stopping never depends on the log being written.
 */
export class LogStream {
  private queue: string[] = [];
  private queuedBytes = 0;
  private writing = false;
  private broken = false;
  private idle: (() => void)[] = [];
  /** Lines dropped because the destination did not keep up. */
  dropped = 0;

  constructor(
    private readonly fd = 1,
    private readonly maxQueuedBytes = 4 * 1024 * 1024,
  ) {}

  write(chunk: string): boolean {
    if (this.broken) return true;
    if (this.queuedBytes + chunk.length > this.maxQueuedBytes) {
      this.dropped += 1;
      return true;
    }
    this.queue.push(chunk);
    this.queuedBytes += chunk.length;
    if (!this.writing) this.next();
    return true;
  }

  private next(): void {
    if (this.broken || this.queue.length === 0) {
      this.writing = false;
      const idle = this.idle;
      this.idle = [];
      for (const wake of idle) wake();
      return;
    }
    this.writing = true;
    const text = this.queue.join('');
    this.queue = [];
    this.writeFrom(Buffer.from(text), 0, text.length);
  }

  private writeFrom(buffer: Buffer, offset: number, chars: number): void {
    write(this.fd, buffer, offset, buffer.length - offset, null, (error, written) => {
      if (error) {
        if (error.code === 'EAGAIN') {
          // A full pipe: try again soon, without keeping a stopping process alive for it.
          setTimeout(() => this.writeFrom(buffer, offset, chars), 20).unref();
          return;
        }
        // EPIPE and the like: nobody will read the log again.
        this.broken = true;
        this.queue = [];
        this.queuedBytes = 0;
        this.next();
        return;
      }
      if (offset + written < buffer.length) {
        this.writeFrom(buffer, offset + written, chars);
        return;
      }
      this.queuedBytes -= chars;
      this.next();
    });
  }

  /** Resolves once everything written so far has reached the destination (or was dropped). */
  drained(): Promise<void> {
    if (!this.writing) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}
