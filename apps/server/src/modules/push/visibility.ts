import type { Db } from '../../db/index.js';
import { ProcessRows } from '../../db/process-rows.js';
import { AgentPresenceStore } from '../../realtime/presence.js';

/**
 * Which agents have a visible console (CONTRACT §14), shared by every process through the database as
 * presence is: a row per (agent, process) while that process holds a visible console of the agent,
 * refreshed so that the rows of a process that died go stale. Each console tells its visibility over its
 * socket (frame 8030); a socket counts as visible until it says otherwise, so a console from before the
 * frame existed never brings pushes on top of its own notifications.
 */
export class PushVisibility {
  private readonly counts = new Map<string, number>();
  private readonly rows: ProcessRows;

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void,
    refreshMs?: number,
  ) {
    this.rows = new ProcessRows(
      db,
      'push_visible',
      (uuid) => this.counts.has(uuid),
      () => this.counts.keys(),
      onError,
      refreshMs,
    );
  }

  /** A console of `uuid` on this process became visible (+1) or stopped being so (-1: hidden or closed). */
  change(uuid: string, delta: 1 | -1): void {
    const count = (this.counts.get(uuid) ?? 0) + delta;
    if (count > 0) this.counts.set(uuid, count);
    else this.counts.delete(uuid);
    this.rows.sync(uuid).catch(this.onError);
  }

  /** The agents of `uuids` none of whose consoles is visible on any process. */
  async hidden(uuids: string[]): Promise<string[]> {
    if (uuids.length === 0) return [];
    const rows = await this.db
      .selectFrom('push_visible')
      .select('agent_uuid')
      .where('agent_uuid', 'in', uuids)
      .where('seen_at', '>', AgentPresenceStore.freshSince())
      .execute();
    const visible = new Set(rows.map((row) => row.agent_uuid));
    return uuids.filter((uuid) => !visible.has(uuid));
  }

  /** With a single process, every row left is from a previous run. */
  clearAll(): Promise<void> {
    return this.rows.clearAll();
  }

  stop(): Promise<void> {
    return this.rows.stop();
  }
}
