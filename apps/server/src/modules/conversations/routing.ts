import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/index.js';
import type { VisitorRow } from '../../db/schema.js';
import { isoNow } from '../../lib/time.js';
import type { AgentRef, EventHub } from '../../realtime/domain-events.js';
import { AgentPresenceStore } from '../../realtime/presence.js';
import type { AgentAvailabilityRepository } from '../agents/availability-repository.js';
import type { LinkRouting } from '../links/service.js';
import type { RegionRouting } from '../regions/rules.js';
import type { VisitorRepository } from '../visitors/repository.js';
import type { ConversationOutboxes } from './outboxes.js';
import type { ConversationRepository } from './repository.js';

/**
 * Who answers a visitor: a new conversation goes to the least loaded available agent, or waits in the
 * queue; waiting visitors are handed out, oldest first, as agents come online or get room.
 */
export class Routing {
  private draining: Promise<void> = Promise.resolve();
  /**
   * Visitors an agent put back in the queue, with that agent: the queue hands them to someone else (the
   * agent may still accept them by hand). Kept by this process until the visitor is handed out.
   */
  private readonly returned = new Map<number, string>();

  constructor(
    private readonly db: Db,
    private readonly repo: ConversationRepository,
    private readonly visitors: VisitorRepository,
    private readonly agents: AgentAvailabilityRepository,
    private readonly events: EventHub,
    private readonly log: FastifyBaseLogger,
    private readonly links: LinkRouting,
    private readonly regions: RegionRouting,
    private readonly outboxes: ConversationOutboxes,
  ) {
    // A merge may take a visitor out of the queue or put the user's visitor in it: the waiting are told.
    events.on('visitor.merged', () => this.queueChanged());
  }

  /** Whether a region rule keeps visitors of this region (`region_code` of their row) from writing. */
  blocked(regionCode: string): boolean {
    return this.regions.blocks(regionCode);
  }

  /** Whether `blocked` may answer true for anyone now. */
  blocksAny(): boolean {
    return this.regions.blocksAny();
  }

  /**
   * Opens a conversation for a visitor without one, given to `agent`, to the robot, or waiting; the
   * visitor as it is now.
   */
  async open(tx: DbOrTx, visitor: VisitorRow, agent: AgentRef | 'robot' | null): Promise<VisitorRow> {
    const now = isoNow();
    const to =
      agent === 'robot'
        ? { state: 'robot', service_id: null, wait_since: null }
        : agent
          ? { state: 'current', service_id: agent.uuid, wait_since: null }
          : { state: 'wait', service_id: null, wait_since: now };
    await this.visitors.transition(tx, visitor.id, { states: ['end'] }, to);
    await this.repo.open(tx, visitor.id, to.service_id, visitor.last_seq + 1, now);
    const opened = { ...visitor, ...to };
    await this.outboxes.opened(tx, opened, agent === 'robot' ? null : agent);
    return opened;
  }

  /** The agent put this visitor back in the queue: the queue does not hand it to them again. */
  returnedBy(visitorId: number, agentUuid: string): void {
    this.returned.set(visitorId, agentUuid);
  }

  /** Tells everyone concerned where a newly opened conversation went. */
  async opened(visitor: VisitorRow, agent: AgentRef | null): Promise<void> {
    await this.events.emit('conversation.opened', { visitor, agent });
    if (!agent) await this.queueChanged();
  }

  /**
   * The agent the visitor's chat link (or else a rule of its region) names, when that agent is available
   * with room; else the online, connected agent with the fewest open conversations below its limit.
   */
  async pickAgent(tx: DbOrTx, visitorId: number): Promise<AgentRef | undefined> {
    const agents = await this.agents.available(tx, AgentPresenceStore.freshSince());
    if (agents.length === 0) return undefined;
    const load = await this.visitors.openLoad(tx);
    // A chat link names its visitors' agent more precisely than their region does.
    const pinned = (await this.links.pinnedAgentOf(tx, visitorId)) ?? (await this.regions.assignedAgentOf(tx, visitorId));
    let best: (typeof agents)[number] | undefined;
    let bestLoad = Number.POSITIVE_INFINITY;
    const returnedBy = this.returned.get(visitorId);
    for (const agent of agents) {
      if (agent.uuid === returnedBy) continue;
      const open = load.get(agent.uuid) ?? 0;
      if (open < agent.max_chats && agent.uuid === pinned) return { uuid: agent.uuid, nickname: agent.nickname, avatar: agent.avatar };
      if (open < agent.max_chats && open < bestLoad) {
        best = agent;
        bestLoad = open;
      }
    }
    return best && { uuid: best.uuid, nickname: best.nickname, avatar: best.avatar };
  }

  /** Tells each waiting visitor its place in the queue. */
  async queueChanged(): Promise<void> {
    const queue = await this.visitors.waiting(this.db);
    await this.events.emit('queue.changed', { queue: queue.map((visitor) => visitor.public_id) });
  }

  /** Gives waiting visitors, oldest first, to agents with room; one drain at a time in this process. */
  drain(): Promise<void> {
    this.draining = this.draining.then(
      () => this.drainQueue(),
      () => this.drainQueue(),
    );
    return this.draining.catch((error: unknown) => this.log.error({ err: error }, 'queue drain failed'));
  }

  private async drainQueue(): Promise<void> {
    let changed = false;
    for (;;) {
      const handed = await this.db.transaction().execute(async (tx) => {
        let next: { id: number } | undefined;
        let agent: AgentRef | undefined;
        for (const candidate of await this.visitors.waiting(tx)) {
          agent = await this.pickAgent(tx, candidate.id);
          if (agent) {
            next = candidate;
            break;
          }
          // Only a visitor returned to the queue may have no agent while the next one has: look past it.
          if (!this.returned.has(candidate.id)) return undefined;
        }
        if (!next || !agent) return undefined;
        if (
          !(await this.visitors.transition(
            tx,
            next.id,
            { states: ['wait'] },
            { state: 'current', service_id: agent.uuid, wait_since: null },
          ))
        )
          return null;
        const conversation = await this.repo.latest(tx, next.id);
        if (conversation && !conversation.ended_at) await this.repo.update(tx, conversation.id, { service_id: agent.uuid });
        const visitor = await this.visitors.findById(tx, next.id);
        if (!visitor) return undefined;
        await this.events.record(tx, 'conversation.assigned', { visitor, agent, by: 'queue' });
        return { visitor, agent };
      });
      if (handed === undefined) break;
      if (handed === null) continue;
      this.returned.delete(handed.visitor.id);
      changed = true;
      await this.events.emit('conversation.assigned', { visitor: handed.visitor, agent: handed.agent, by: 'queue' });
    }
    if (changed) await this.queueChanged();
  }
}
