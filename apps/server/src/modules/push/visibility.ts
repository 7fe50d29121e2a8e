import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/index.js';
import { isoNow } from '../../lib/time.js';
import { AgentPresenceStore } from '../../realtime/presence.js';

const REFRESH_MS = 10_000;

/**
 * Which agents have a visible console (CONTRACT §14), shared by every process through the database as
 * presence is: a row per (agent, process) while that process holds a visible console of the agent,
 * refreshed so that the rows of a process that died go stale. Each console tells its visibility over its
 * socket (frame 8030); a socket counts as visible until it says otherwise, so a console from before the
 * frame existed never brings pushes on top of its own notifications.
 */
export class PushVisibility {
  private readonly counts = new Map<string, number>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly timer: NodeJS.Timeout;
  private stopped = false;
  private readonly nodeId = randomBytes(8).toString('hex');

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void,
    refreshMs = REFRESH_MS,
  ) {
    this.timer = setInterval(() => this.refresh().catch(onError), refreshMs);
    this.timer.unref();
  }

  /** A console of `uuid` on this process became visible (+1) or stopped being so (-1: hidden or closed). */
  change(uuid: string, delta: 1 | -1): void {
    const count = (this.counts.get(uuid) ?? 0) + delta;
    if (count > 0) this.counts.set(uuid, count);
    else this.counts.delete(uuid);
    this.sync(uuid).catch(this.onError);
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

  /** Writes for one agent run one after another, each writing what this process holds when it runs. */
  private sync(uuid: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const next = (this.pending.get(uuid) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        if (this.stopped) return;
        await this.db.deleteFrom('push_visible').where('agent_uuid', '=', uuid).where('node_id', '=', this.nodeId).execute();
        if (this.counts.has(uuid))
          await this.db.insertInto('push_visible').values({ agent_uuid: uuid, node_id: this.nodeId, seen_at: isoNow() }).execute();
      });
    this.pending.set(uuid, next);
    const forget = () => {
      if (this.pending.get(uuid) === next) this.pending.delete(uuid);
    };
    next.then(forget, forget);
    return next;
  }

  private async refresh(): Promise<void> {
    if (this.stopped || this.counts.size === 0) return;
    await this.db.updateTable('push_visible').set({ seen_at: isoNow() }).where('node_id', '=', this.nodeId).execute();
  }

  /** With a single process, every row left is from a previous run. */
  async clearAll(): Promise<void> {
    await this.db.deleteFrom('push_visible').execute();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled(this.pending.values());
    this.stopped = true;
    await this.db.deleteFrom('push_visible').where('node_id', '=', this.nodeId).execute();
  }
}
