import { statfs } from 'node:fs/promises';
import type { UploadLimits } from '../../config.js';
import { ApiError } from '../../lib/errors.js';
import type { MessageKey } from '../../lib/i18n.js';
import type { UploadRepository, UsageScope } from './repository.js';

const DAY_MS = 24 * 3600 * 1000;

interface Counter {
  key: string;
  /** Bytes already stored, read once while uploads of this scope run, then kept up to date here. */
  stored: number;
  /** Bytes received by uploads of this scope that are still running. */
  inflight: number;
  users: number;
  ready: Promise<void>;
  limit: number;
  refusal: MessageKey;
}

/**
 * The address a quota counts: an IPv4 address as it is, an IPv6 address by its /64 (one subscriber's
 * network, in which a client may pick any address).
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!ip.includes(':')) return ip;
  const [head = '', tail] = ip.toLowerCase().split('%')[0]?.split('::') ?? [];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || '0', 16).toString(16))
    .join(':')}::/64`;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;

/**
 * Upload quotas: bytes per visitor and per address over the last 24 hours, and bytes of all stored
 * uploads. Bytes count while they arrive, so parallel uploads share one budget: every running upload of
 * a scope sees the same counter (stored bytes plus those in flight), and an upload is cut off at the
 * chunk that would cross a limit. Counters live in this process; with several processes the stored part
 * is shared through the database and only bytes in flight elsewhere are not seen.
 */
export class UploadQuota {
  private readonly counters = new Map<string, Counter>();

  constructor(
    private readonly repo: UploadRepository,
    private readonly dir: string,
    private readonly limits: UploadLimits,
  ) {}

  /** Starts counting one upload; refuses (429) at once when a scope is already full or the disk nearly so. */
  async begin(owner: { visitorId: number | null; ip: string }): Promise<Reservation> {
    const since = new Date(Date.now() - DAY_MS).toISOString();
    const scopes: [string, UsageScope, number, MessageKey][] = [['total', { kind: 'total' }, this.limits.totalBytes, 'uploadStorageFull']];
    if (owner.visitorId !== null) {
      scopes.push([
        `visitor:${owner.visitorId}`,
        { kind: 'visitor', visitorId: owner.visitorId, since },
        this.limits.visitorDailyBytes,
        'uploadVisitorQuota',
      ]);
      scopes.push([`address:${owner.ip}`, { kind: 'address', ip: owner.ip, since }, this.limits.addressDailyBytes, 'uploadAddressQuota']);
    }
    const counters = scopes.map(([key, scope, limit, refusal]) => this.counter(key, scope, limit, refusal));
    const reservation = new Reservation(counters, () => this.release(counters));
    try {
      await Promise.all(counters.map((counter) => counter.ready));
      const full = counters.find((counter) => counter.stored + counter.inflight >= counter.limit);
      if (full) throw new ApiError(429, full.refusal, { mb: mb(full.limit) });
      if (this.limits.minFreeBytes > 0) {
        const disk = await statfs(this.dir);
        const total = this.counters.get('total');
        if (disk.bavail * disk.bsize - (total?.inflight ?? 0) < this.limits.minFreeBytes) {
          throw new ApiError(429, 'uploadDiskLow', { mb: mb(this.limits.minFreeBytes) });
        }
      }
      return reservation;
    } catch (error) {
      reservation.end();
      throw error;
    }
  }

  private counter(key: string, scope: UsageScope, limit: number, refusal: MessageKey): Counter {
    let counter = this.counters.get(key);
    if (!counter) {
      const created: Counter = { key, stored: 0, inflight: 0, users: 0, limit, refusal, ready: Promise.resolve() };
      created.ready = this.repo.usage(scope).then((bytes) => {
        created.stored = bytes;
      });
      // A failed read is answered to the uploads waiting on it; the next upload reads again.
      created.ready.catch(() => this.counters.get(key) === created && this.counters.delete(key));
      this.counters.set(key, created);
      counter = created;
    }
    counter.users += 1;
    return counter;
  }

  private release(counters: Counter[]): void {
    for (const counter of counters) {
      counter.users -= 1;
      // Read again next time: the 24-hour window moves, and the sweep removes files.
      if (counter.users === 0 && this.counters.get(counter.key) === counter) this.counters.delete(counter.key);
    }
  }
}

/** The bytes one upload has received so far, counted against every scope it belongs to. */
export class Reservation {
  private received = 0;
  private done = false;
  /** Set when a chunk was refused; the upload is then answered with it. */
  refused: ApiError | undefined;

  constructor(
    private readonly counters: Counter[],
    private readonly onEnd: () => void,
  ) {}

  /** Counts a chunk, or refuses it (and every later one) when it would cross a limit. */
  add(bytes: number): boolean {
    if (this.refused) return false;
    const full = this.counters.find((counter) => counter.stored + counter.inflight + bytes > counter.limit);
    if (full) {
      this.refused = new ApiError(429, full.refusal, { mb: mb(full.limit) });
      return false;
    }
    this.received += bytes;
    for (const counter of this.counters) counter.inflight += bytes;
    return true;
  }

  /** The upload was stored: its bytes move from in flight to stored. */
  commit(): void {
    if (this.done) return;
    for (const counter of this.counters) {
      counter.inflight -= this.received;
      counter.stored += this.received;
    }
    this.received = 0;
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    for (const counter of this.counters) counter.inflight -= this.received;
    this.received = 0;
    this.onEnd();
  }
}
