import type { Bus } from '../../realtime/bus.js';

/** Wakes whoever sends the deliveries: the worker of this process, or the worker processes. */
export interface DeliveryKick {
  kick(): void;
}

/**
 * Wakes the worker processes (`WEBHOOK_DELIVERY=worker`) through the bus. At a busy site's rate every
 * message queues an event; one wake-up per `everyMs` carries them all, and the workers' own look every
 * `WEBHOOK_POLL_MS` covers a wake-up lost with Redis.
 */
export class BusKick implements DeliveryKick {
  private timer: NodeJS.Timeout | undefined;
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly bus: Bus,
    private readonly onError: (error: unknown) => void,
    private readonly everyMs = 20,
    private readonly now: () => number = Date.now,
  ) {}

  kick(): void {
    if (this.timer) return;
    const wait = this.last + this.everyMs - this.now();
    if (wait <= 0) {
      this.send();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.send();
    }, wait);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private send(): void {
    this.last = this.now();
    this.bus.publish({ type: 'webhooks.queued' }).catch(this.onError);
  }
}
