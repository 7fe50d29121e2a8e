import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** How the receiver answers the next request: a status (`afterMs` later), never (hang), a redirect, or a huge body. */
export type Answer = { status: number; afterMs?: number } | 'hang' | 'redirect' | 'huge';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every request and answers
 * as told, one answer per request from `plan`, then `otherwise`.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Answers for the next requests, first first; when empty, `otherwise`. */
  plan: Answer[] = [];
  otherwise: Answer = { status: 200 };
  /** Bytes a `huge` answer sent before the client went away. */
  hugeBytesSent = 0;
  private readonly open = new Set<ServerResponse>();
  private server!: Server;
  url = '';

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server = createServer((req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    const address = receiver.server.address();
    if (typeof address !== 'object' || !address) throw new Error('no address');
    receiver.url = `http://127.0.0.1:${address.port}/hook`;
    return receiver;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = this.plan.shift() ?? this.otherwise;
      this.open.add(res);
      res.on('close', () => this.open.delete(res));
      if (answer === 'hang') return;
      if (answer === 'redirect') {
        res.writeHead(302, { location: `${this.url}/elsewhere` }).end();
        return;
      }
      if (answer === 'huge') {
        // 100 MB announced and streamed for as long as the client reads.
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(100 * 1024 * 1024) });
        const block = Buffer.alloc(64 * 1024, 120);
        const pump = () => {
          while (this.hugeBytesSent < 100 * 1024 * 1024 && !res.destroyed) {
            this.hugeBytesSent += block.length;
            if (!res.write(block)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
        return;
      }
      const answered = () => {
        if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'text/plain' }).end('ok');
      };
      if (answer.afterMs) setTimeout(answered, answer.afterMs);
      else answered();
    });
  }

  /** The requests of one event type, in the order they came. */
  of(type: string): Received[] {
    return this.received.filter((request) => request.headers['parley-event'] === type);
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Whether `Parley-Signature` signs the body with the secret: `t=<s>,v1=<hex>[,v1=<hex>]` where a v1 is
 * HMAC-SHA256(secret, "<t>.<body>"), as a receiver checks it.
 */
export function verifySignature(header: string | string[] | undefined, body: string, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const parts = header.split(',').map((part) => part.split('=') as [string, string]);
  const t = parts.find(([key]) => key === 't')?.[1];
  if (!t || !/^\d+$/.test(t)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts
    .filter(([key]) => key === 'v1')
    .some(([, hex]) => {
      const given = Buffer.from(hex, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
