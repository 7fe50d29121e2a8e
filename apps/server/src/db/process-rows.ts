import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isoNow } from '../lib/time.js';
import type { Db } from './index.js';

/** The tables of this shape: `agent_uuid`, `node_id`, `seen_at`. */
export type ProcessRowTable = 'agent_presence' | 'push_visible';

/** The columns both tables have; each table's queries are written against this shape. */
interface ProcessRow {
  agent_uuid: string;
  node_id: string;
  seen_at: string;
}

/** A process refreshes its rows this often; readers ignore rows older than they allow (presence: 30 s). */
const REFRESH_MS = 10_000;

/**
 * Something each server process holds per agent (an open socket, a visible console), shared with every
 * other process through the database: a row per (agent, process) while this process holds it, refreshed
 * so that the rows of a process that died go stale. Writes for one agent run one after another and write
 * what `holds` says when they run, so a quick close-and-reopen never ends with the row deleted; the
 * refresh also puts right rows that a write failed to change while the database was away.
 */
export class ProcessRows {
  readonly nodeId = randomBytes(8).toString('hex');
  private readonly pending = new Map<string, Promise<void>>();
  private readonly timer: NodeJS.Timeout;
  private stopped = false;
  private readonly db: Kysely<Record<ProcessRowTable, ProcessRow>>;

  constructor(
    db: Db,
    private readonly table: ProcessRowTable,
    /** Whether this process holds the thing for the agent now. */
    private readonly holds: (uuid: string) => boolean,
    /** Every agent this process holds it for now. */
    private readonly held: () => Iterable<string>,
    onError: (error: unknown) => void,
    refreshMs = REFRESH_MS,
  ) {
    this.db = db as unknown as Kysely<Record<ProcessRowTable, ProcessRow>>;
    this.timer = setInterval(() => this.refresh().catch(onError), refreshMs);
    this.timer.unref();
  }

  /** Writes the agent's row to match `holds` when the write runs. */
  sync(uuid: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const next = (this.pending.get(uuid) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        if (this.stopped) return;
        await this.db.deleteFrom(this.table).where('agent_uuid', '=', uuid).where('node_id', '=', this.nodeId).execute();
        if (this.holds(uuid))
          await this.db.insertInto(this.table).values({ agent_uuid: uuid, node_id: this.nodeId, seen_at: isoNow() }).execute();
      });
    this.pending.set(uuid, next);
    // Both outcomes are handled here, so a failed write is reported once, by the caller, not as unhandled.
    const forget = () => {
      if (this.pending.get(uuid) === next) this.pending.delete(uuid);
    };
    next.then(forget, forget);
    return next;
  }

  private async refresh(): Promise<void> {
    if (this.stopped) return;
    const rows = await this.db.selectFrom(this.table).select('agent_uuid').where('node_id', '=', this.nodeId).execute();
    const stored = new Set(rows.map((row) => row.agent_uuid));
    const held = [...this.held()];
    const wrong = [...stored].filter((uuid) => !this.holds(uuid)).concat(held.filter((uuid) => !stored.has(uuid)));
    await Promise.all(wrong.map((uuid) => this.sync(uuid)));
    if (held.length === 0) return;
    await this.db.updateTable(this.table).set({ seen_at: isoNow() }).where('node_id', '=', this.nodeId).execute();
  }

  /** With a single process, every row left in the table is from a previous run. */
  async clearAll(): Promise<void> {
    await this.db.deleteFrom(this.table).execute();
  }

  /** Waits for writes under way, then removes this process's rows; later changes are ignored. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled(this.pending.values());
    this.stopped = true;
    await this.db.deleteFrom(this.table).where('node_id', '=', this.nodeId).execute();
  }
}
