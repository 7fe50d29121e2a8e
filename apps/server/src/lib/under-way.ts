/**
 * Work that runs beside the action that started it (a mail, a push, a presence notice), kept so that a
 * close can wait for it before what it uses (the database, a connection) is stopped.
 */
export class UnderWay {
  private readonly pending = new Set<Promise<unknown>>();

  /** Keeps `work` until it settles; a rejection is the caller's to handle, this adds no second one. */
  add(work: Promise<unknown>): void {
    this.pending.add(work);
    const done = () => this.pending.delete(work);
    work.then(done, done);
  }

  get size(): number {
    return this.pending.size;
  }

  /** Resolves once nothing is under way, work added meanwhile (by work that ended) included. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
