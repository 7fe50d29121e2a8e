import { randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';
import { isoBefore, isoNow } from '../lib/time.js';

/** A process refreshes its presence rows this often; rows older than PRESENCE_STALE_S are ignored. */
const REFRESH_MS = 10_000;
export const PRESENCE_STALE_S = 30;

/**
 * Agent presence shared by every server process through the database: a row per (agent, process)
 * while that process holds a socket of the agent. A process that dies leaves rows that go stale.
 */
export class AgentPresenceStore {
  readonly nodeId = randomBytes(8).toString('hex');
  private readonly local = new Set<string>();
  private readonly pending = new Map<string, Promise<void>>();
  private stopped = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    onError: (error: unknown) => void,
    refreshMs = REFRESH_MS,
  ) {
    this.timer = setInterval(() => this.refresh().catch(onError), refreshMs);
    this.timer.unref();
  }

  /** With a single process, every row left in the table is from a previous run. */
  async clearAll(): Promise<void> {
    await this.db.deleteFrom('agent_presence').execute();
  }

  connected(uuid: string): Promise<void> {
    this.local.add(uuid);
    return this.sync(uuid);
  }

  disconnected(uuid: string): Promise<void> {
    this.local.delete(uuid);
    return this.sync(uuid);
  }

  /**
   * Writes an agent's row to match what this process holds *when the write runs*; writes for one agent
   * run one after another, so a quick close-and-reopen never ends with the row deleted.
   */
  private sync(uuid: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const previous = this.pending.get(uuid) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        if (this.stopped) return;
        await this.db.deleteFrom('agent_presence').where('agent_uuid', '=', uuid).where('node_id', '=', this.nodeId).execute();
        if (this.local.has(uuid)) {
          await this.db.insertInto('agent_presence').values({ agent_uuid: uuid, node_id: this.nodeId, seen_at: isoNow() }).execute();
        }
      });
    this.pending.set(uuid, next);
    // Both outcomes are handled here, so a failed write is reported once, by the caller, not as unhandled.
    const forget = () => {
      if (this.pending.get(uuid) === next) this.pending.delete(uuid);
    };
    next.then(forget, forget);
    return next;
  }

  /**
   * Keeps this process's rows fresh, and puts right those that do not match what it holds: a write that
   * failed while the database was away would otherwise leave an agent who left counted as present for
   * good (the refresh kept its row fresh), or one who is here absent.
   */
  private async refresh(): Promise<void> {
    if (this.stopped) return;
    const rows = await this.db.selectFrom('agent_presence').select('agent_uuid').where('node_id', '=', this.nodeId).execute();
    const stored = new Set(rows.map((row) => row.agent_uuid));
    const wrong = [...stored].filter((uuid) => !this.local.has(uuid)).concat([...this.local].filter((uuid) => !stored.has(uuid)));
    await Promise.all(wrong.map((uuid) => this.sync(uuid)));
    if (this.local.size === 0) return;
    await this.db.updateTable('agent_presence').set({ seen_at: isoNow() }).where('node_id', '=', this.nodeId).execute();
  }

  static freshSince(): string {
    return isoBefore(PRESENCE_STALE_S);
  }

  /** Waits for writes under way, then removes this process's rows; later changes are ignored. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled(this.pending.values());
    this.stopped = true;
    await this.db.deleteFrom('agent_presence').where('node_id', '=', this.nodeId).execute();
  }
}
