import type { Bus } from '../../realtime/bus.js';

/** Wakes whoever sends the deliveries: the worker of this process, or the worker processes. */
export interface DeliveryKick {
  kick(): void;
}

/**
 * Wakes whoever sends, at most once per `everyMs`: at a busy site's rate every message queues an event,
 * and one wake-up carries them all (the sender's own look every `WEBHOOK_POLL_MS` covers one lost).
 */
export class ThrottledKick implements DeliveryKick {
  private timer: NodeJS.Timeout | undefined;
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly wake: () => void,
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
    this.wake();
  }
}

/** Wakes the worker processes (`WEBHOOK_DELIVERY=worker`) through the bus. */
export class BusKick extends ThrottledKick {
  constructor(bus: Bus, onError: (error: unknown) => void, everyMs = 20, now: () => number = Date.now) {
    super(() => bus.publish({ type: 'webhooks.queued' }).catch(onError), everyMs, now);
  }
}
