import { createHash } from 'node:crypto';
import type { PushDevice, PushPayload, pushSubscribeBody } from '@parley/protocol';
import webpush from 'web-push';
import type { z } from 'zod';
import { ApiError, notFound } from '../../lib/errors.js';
import type { Lang } from '../../lib/i18n.js';
import { type OutboundClient, OutboundError } from '../../lib/outbound.js';
import { SealError, type Sealer } from '../../lib/sealed.js';
import { ValidationError } from '../../lib/validate.js';
import type { PushRepository, SubscriptionRow } from './repository.js';

/** The sealed private key's purpose: it opens nowhere else. */
const KEY_PURPOSE = 'push.vapidPrivateKey';
/**
 * How long a push service keeps a push for a browser that is away (seconds): long enough for a short
 * sleep, short enough that a laptop opened the next morning is not handed the day's visitors.
 */
export const PUSH_TTL_S = 600;
const SEND_TIMEOUT_MS = 10_000;

export type PushOutcome = 'sent' | 'dropped' | 'failed';

/**
 * A push's `Topic` (RFC 8030 §5.4): the push service keeps only the newest push of one topic for a browser
 * that is away, so a burst on one conversation is one notification. At most 32 base64url characters.
 */
export function pushTopic(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 32);
}

/**
 * Web Push (CONTRACT §14): the server's VAPID key pair, made on the first start and kept with the private
 * key sealed; the agents' subscriptions; and the sending, through the outbound guard, as every request to
 * an address a user handed in is (a push endpoint is one). A subscription answering 404 or 410 is gone
 * and is dropped; any other failure is counted and kept on the subscription, for its agent to see.
 */
export class PushService {
  private keys: { publicKey: string; privateKey: string } | undefined;
  /** Told of each failed push, with its reason (`http`, `timeout`, …): the metrics count them. */
  onFailure: (reason: string) => void = () => {};
  /** Told when a device was added or went: who has devices must be read again, in every process. */
  onChanged: () => void = () => {};
  /** Told at start when the stored key pair cannot be opened with this process's sealing key. */
  onKeyUnreadable: (error: Error) => void = () => {};

  constructor(
    private readonly repo: PushRepository,
    private readonly sealer: Sealer,
    private readonly outbound: OutboundClient,
    /** The VAPID `sub`: whom a push service may contact about this server. */
    private readonly subject: () => string,
    private readonly now: () => number,
  ) {}

  /** Reads the key pair, making it on the first start; two processes starting at once keep the first stored. */
  async load(): Promise<void> {
    let row = await this.repo.key();
    if (!row) {
      const made = webpush.generateVAPIDKeys();
      await this.repo.insertKey(made.publicKey, this.sealer.seal(made.privateKey, KEY_PURPOSE), this.at());
      row = await this.repo.key();
    }
    if (!row) throw new Error('the push key pair could not be stored');
    try {
      this.keys = { publicKey: row.public_key, privateKey: this.sealer.open(row.private_key, KEY_PURPOSE) };
    } catch (error) {
      // A process whose sealing key is not the deployment's: the rest of it serves; Web Push answers 503.
      if (!(error instanceof SealError)) throw error;
      this.onKeyUnreadable(error);
    }
  }

  publicKey(): string {
    return this.pair().publicKey;
  }

  private pair() {
    if (!this.keys) throw new ApiError(503, 'pushUnavailable');
    return this.keys;
  }

  private at(): string {
    return new Date(this.now()).toISOString();
  }

  async subscribe(agentId: number, input: z.output<typeof pushSubscribeBody>, userAgent: string, lang: Lang): Promise<PushDevice> {
    // Keys a push could not be encrypted to are refused now rather than failing at every push.
    try {
      this.request({ endpoint: input.endpoint, p256dh: input.keys.p256dh, auth: input.keys.auth }, 'x', 'check');
    } catch {
      throw new ValidationError('keys', 'reasonInvalid', {});
    }
    await this.outbound.check(input.endpoint).catch((error: unknown) => {
      if (error instanceof OutboundError) throw new ValidationError('endpoint', 'reasonInvalid', {});
      throw error;
    });
    const id = await this.repo.subscribe(
      agentId,
      { endpoint: input.endpoint, p256dh: input.keys.p256dh, auth: input.keys.auth, userAgent: userAgent.slice(0, 256), lang },
      this.at(),
    );
    this.onChanged();
    const [device] = await this.repo.devices(agentId, id);
    if (!device) throw notFound();
    return device;
  }

  async unsubscribe(agentId: number, endpoint: string): Promise<void> {
    await this.repo.unsubscribe(agentId, endpoint);
    this.onChanged();
  }

  async devices(agentId: number): Promise<{ list: PushDevice[]; total: number }> {
    const list = await this.repo.devices(agentId);
    return { list, total: list.length };
  }

  async removeDevice(agentId: number, id: number): Promise<void> {
    // Another agent's device is as unknown as one that does not exist.
    if ((await this.repo.remove(agentId, id)) === 0) throw notFound();
    this.onChanged();
  }

  private request(sub: Pick<SubscriptionRow, 'endpoint' | 'p256dh' | 'auth'>, body: string, topic: string) {
    const { publicKey, privateKey } = this.pair();
    return webpush.generateRequestDetails({ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, body, {
      vapidDetails: { subject: this.subject(), publicKey, privateKey },
      contentEncoding: 'aes128gcm',
      TTL: PUSH_TTL_S,
      topic,
      urgency: 'high',
    });
  }

  /** Sends one push to one subscription; never throws (the outcome says what happened). */
  async send(sub: SubscriptionRow, payload: PushPayload, topicKey: string): Promise<PushOutcome> {
    let reason: string;
    try {
      const details = this.request(sub, JSON.stringify(payload), pushTopic(topicKey));
      const headers = Object.fromEntries(Object.entries(details.headers).map(([name, value]) => [name, String(value)]));
      const answer = await this.outbound.request(details.endpoint, {
        method: 'POST',
        headers,
        body: details.body,
        timeoutMs: SEND_TIMEOUT_MS,
        readBody: false,
      });
      if (answer.status >= 200 && answer.status < 300) {
        await this.repo.sent(sub.id, this.at());
        return 'sent';
      }
      // The browser unsubscribed, or the push service forgot it: it will never take a push again.
      if (answer.status === 404 || answer.status === 410) {
        await this.repo.drop(sub.id);
        this.onChanged();
        return 'dropped';
      }
      reason = `http ${answer.status}`;
    } catch (error) {
      reason = error instanceof OutboundError ? error.reason : 'error';
    }
    this.onFailure(reason.split(' ')[0] ?? 'error');
    await this.repo.failed(sub.id, this.at(), reason);
    return 'failed';
  }
}
