import type { Db } from './index.js';

/** A claim this process holds: what `release` needs to drop it and nobody else's. */
export interface Claim {
  name: string;
  until: string;
}

/** Lapsed claims are swept at most this often: a claim is a row, and names (per WeChat user) add up. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Short claims on a name, held in the database every process shares (one SQLite file, or PostgreSQL
 * behind several processes): `take` succeeds for one caller until the claim lapses or is released, so
 * one process forces a WeChat token refresh while the others wait for its token, and one asks WeChat
 * for a typing indicator that the others' agents would ask for again. A claim lapses on its own, so a
 * process that dies holding one blocks nobody for longer than its time.
 */
export class Claims {
  private sweptAt = 0;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes `name` for `ms` unless a claim on it is still live; the claim, or undefined when another holds it. */
  async take(name: string, ms: number): Promise<Claim | undefined> {
    const at = this.now();
    await this.sweep(at);
    const now = new Date(at).toISOString();
    const until = new Date(at + ms).toISOString();
    // One statement, atomic in both databases: a new name is inserted; a lapsed claim is taken over;
    // a live one is left alone and nothing is returned.
    const taken = await this.db
      .insertInto('claims')
      .values({ name, until })
      .onConflict((oc) => oc.column('name').doUpdateSet({ until }).where('claims.until', '<=', now))
      .returning('name')
      .executeTakeFirst();
    return taken ? { name, until } : undefined;
  }

  /** Drops a claim this process took (not one another took over after it lapsed). */
  async release(claim: Claim): Promise<void> {
    await this.db.deleteFrom('claims').where('name', '=', claim.name).where('until', '=', claim.until).execute();
  }

  /** Drops a live claim on `name`, whoever took it: whether one was live. */
  async end(name: string): Promise<boolean> {
    const now = new Date(this.now()).toISOString();
    const ended = await this.db.deleteFrom('claims').where('name', '=', name).where('until', '>', now).returning('name').executeTakeFirst();
    return ended !== undefined;
  }

  private async sweep(at: number): Promise<void> {
    if (at - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = at;
    await this.db.deleteFrom('claims').where('until', '<=', new Date(at).toISOString()).execute();
  }
}
