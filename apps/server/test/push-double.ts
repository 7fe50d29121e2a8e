import { createDecipheriv, createECDH, createPublicKey, type ECDH, hkdfSync, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A browser's side of a subscription: its P-256 key pair and auth secret, as the test makes them. */
export interface DoubleSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  ecdh: ECDH;
  authSecret: Buffer;
}

/** A push as the double took it: checked and decrypted. */
export interface ReceivedPush {
  subscription: string;
  payload: unknown;
  topic: string | undefined;
  ttl: number;
  urgency: string | undefined;
  /** The VAPID JWT's claims. */
  claims: { aud: string; exp: number; sub: string };
  at: number;
}

/**
 * A push service for tests (RFC 8030): a real HTTP server on 127.0.0.1 with an endpoint per subscription.
 * Each push must carry a VAPID `Authorization` (RFC 8292) whose ES256 JWT verifies against the server's
 * public key, for this origin, unexpired; its `aes128gcm` body (RFC 8188, RFC 8291) is decrypted with the
 * subscription's private key and auth secret. A push that fails a check is answered 400/401/403 and not
 * recorded; each endpoint answers `status[id]` (201 unless set: 410 for a browser that unsubscribed).
 */
export class PushDouble {
  readonly received: ReceivedPush[] = [];
  /** Refused pushes, with why: a test that expects none checks this stays empty. */
  readonly refused: string[] = [];
  readonly status = new Map<string, number>();
  private readonly subscriptions = new Map<string, DoubleSubscription>();
  private server!: Server;
  origin = '';

  /** `serverKey`: the VAPID public key the server publishes (`GET /api/push/key`). */
  private constructor(private readonly serverKey: string) {}

  static async start(serverKey: string): Promise<PushDouble> {
    const double = new PushDouble(serverKey);
    double.server = createServer((req, res) => double.handle(req, res));
    await new Promise<void>((resolve) => double.server.listen(0, '127.0.0.1', resolve));
    const address = double.server.address();
    if (typeof address !== 'object' || !address) throw new Error('no address');
    double.origin = `http://127.0.0.1:${address.port}`;
    return double;
  }

  /** A new browser subscription: keys made here, as a browser makes them. */
  subscription(): DoubleSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const authSecret = randomBytes(16);
    const id = randomBytes(9).toString('base64url');
    const subscription = {
      endpoint: `${this.origin}/push/${id}`,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') },
      ecdh,
      authSecret,
    };
    this.subscriptions.set(id, subscription);
    return subscription;
  }

  /** The pushes an endpoint took, oldest first. */
  to(subscription: DoubleSubscription): ReceivedPush[] {
    return this.received.filter((push) => push.subscription === subscription.endpoint);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const refuse = (status: number, why: string) => {
        this.refused.push(why);
        res.writeHead(status).end(why);
      };
      const id = /^\/push\/([\w-]+)$/.exec(req.url ?? '')?.[1] ?? '';
      const subscription = this.subscriptions.get(id);
      if (req.method !== 'POST' || !subscription) return refuse(404, 'no such subscription');
      const claims = this.checkVapid(req.headers.authorization ?? '');
      if (typeof claims === 'string') return refuse(401, claims);
      if (req.headers['content-encoding'] !== 'aes128gcm') return refuse(400, 'not aes128gcm');
      const ttl = Number(req.headers.ttl);
      if (!Number.isInteger(ttl) || ttl < 0) return refuse(400, 'no TTL');
      const topic = req.headers.topic as string | undefined;
      if (topic !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(topic)) return refuse(400, 'bad topic');
      let payload: unknown;
      try {
        payload = JSON.parse(decrypt(Buffer.concat(chunks), subscription).toString('utf8'));
      } catch (error) {
        return refuse(400, `cannot decrypt: ${(error as Error).message}`);
      }
      const status = this.status.get(subscription.endpoint) ?? 201;
      if (status < 300)
        this.received.push({
          subscription: subscription.endpoint,
          payload,
          topic,
          ttl,
          urgency: req.headers.urgency as string | undefined,
          claims,
          at: Date.now(),
        });
      res.writeHead(status).end();
    });
  }

  /** RFC 8292 §3: `vapid t=<JWT>, k=<public key>`; the claims, or why the header is refused. */
  private checkVapid(header: string): ReceivedPush['claims'] | string {
    const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+),\s*k=([\w-]+)$/.exec(header);
    if (!match) return 'no VAPID authorization';
    const [jwt = '', key = ''] = match.slice(1);
    if (key !== this.serverKey) return 'not the server key';
    const [head = '', body = '', signature = ''] = jwt.split('.');
    const raw = Buffer.from(key, 'base64url');
    const publicKey = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') },
      format: 'jwk',
    });
    const signed = verify(
      'sha256',
      Buffer.from(`${head}.${body}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    if (!signed) return 'bad JWT signature';
    if (JSON.parse(Buffer.from(head, 'base64url').toString()).alg !== 'ES256') return 'not ES256';
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as ReceivedPush['claims'];
    if (claims.aud !== this.origin) return 'wrong audience';
    const now = Date.now() / 1000;
    if (!(claims.exp > now && claims.exp <= now + 24 * 3600)) return 'expired or too far';
    if (!/^(mailto:|https:)/.test(claims.sub ?? '')) return 'no subject';
    return claims;
  }
}

/** RFC 8291 §3.4 and RFC 8188 §2: one record, the application server's key in the header's key id. */
export function decrypt(body: Buffer, subscription: Pick<DoubleSubscription, 'ecdh' | 'authSecret'>): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20] ?? 0;
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (idLength !== 65) throw new Error('key id is not a P-256 public key');
  if (record.length > recordSize) throw new Error('more than one record');
  const shared = subscription.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), subscription.ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, subscription.authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 2, then any zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end);
}
