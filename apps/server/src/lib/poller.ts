/**
 * Runs `work` one run at a time: every `intervalMs` once started, and at once when kicked; a kick during a
 * run asks for one more run right after it, so nothing kicked is missed and runs never overlap. The
 * outboxes (WeChat sends, webhook deliveries) drain through it.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private halted = true;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Whether `stop` was called (or `start` not yet): a run under way ends its loop early. */
  get stopped(): boolean {
    return this.halted;
  }

  start(intervalMs: number): void {
    this.halted = false;
    this.timer = setInterval(() => this.kick(), intervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Runs now, or right after the run under way. */
  kick(): void {
    if (this.halted) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.work()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Stops the timer and waits for the run under way. */
  async stop(): Promise<void> {
    this.halted = true;
    clearInterval(this.timer);
    await this.running;
  }
}
