import type { Db } from '../db/index.js';
import { ProcessRows } from '../db/process-rows.js';
import { isoBefore } from '../lib/time.js';

/** Presence rows older than this are ignored (a process refreshes its own every 10 s). */
export const PRESENCE_STALE_S = 30;

/**
 * Agent presence shared by every server process through the database: a row per (agent, process)
 * while that process holds a socket of the agent. A process that dies leaves rows that go stale.
 */
export class AgentPresenceStore {
  private readonly local = new Set<string>();
  private readonly rows: ProcessRows;

  constructor(db: Db, onError: (error: unknown) => void, refreshMs?: number) {
    this.rows = new ProcessRows(
      db,
      'agent_presence',
      (uuid) => this.local.has(uuid),
      () => this.local,
      onError,
      refreshMs,
    );
  }

  get nodeId(): string {
    return this.rows.nodeId;
  }

  /** With a single process, every row left in the table is from a previous run. */
  clearAll(): Promise<void> {
    return this.rows.clearAll();
  }

  connected(uuid: string): Promise<void> {
    this.local.add(uuid);
    return this.rows.sync(uuid);
  }

  disconnected(uuid: string): Promise<void> {
    this.local.delete(uuid);
    return this.rows.sync(uuid);
  }

  static freshSince(): string {
    return isoBefore(PRESENCE_STALE_S);
  }

  /** Waits for writes under way, then removes this process's rows; later changes are ignored. */
  stop(): Promise<void> {
    return this.rows.stop();
  }
}
