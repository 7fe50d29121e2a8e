import { frame, type KnownFrame, SocketCode, type VisitorState } from '@parley/protocol';
import type { VisitorRow } from '../../db/schema.js';
import type { Bus } from '../../realtime/bus.js';
import type { AgentRef, EventHub } from '../../realtime/domain-events.js';
import type { AgentAvailabilityRepository } from '../agents/availability-repository.js';
import { MonitorCache } from './monitors.js';
import type { ConversationRepository } from './repository.js';

type Audience = Pick<VisitorRow, 'id' | 'state' | 'service_id'>;

/**
 * Turns domain events into socket frames and addresses them. A visitor's events go to its agent and the
 * supervisors monitoring it while the conversation is someone's; to every agent while it is waiting or
 * unassigned; and never to another visitor.
 */
export class Notifier {
  private readonly monitors: MonitorCache;

  constructor(
    private readonly bus: Bus,
    private readonly conversations: ConversationRepository,
    private readonly agents: AgentAvailabilityRepository,
  ) {
    this.monitors = new MonitorCache((visitorId) => conversations.monitorsOf(visitorId));
  }

  subscribe(events: EventHub): void {
    this.bus.subscribe((event) => {
      if (event.type === 'monitors.changed') this.monitors.forget(event.visitorId);
    });
    this.conversations.onMonitorAdded = (visitorId) => this.bus.publish({ type: 'monitors.changed', visitorId });
    events.on('visit.recorded', ({ visitor, visit }) =>
      this.toAgentsOf(visitor, frame(SocketCode.visit, { YQToken: visitor.public_id, ...visit })),
    );
    events.on('visitor.typing', ({ visitor, text }) =>
      this.toAgentsOf(visitor, frame(SocketCode.typing, { YQToken: visitor.public_id, text })),
    );
    events.on('visitor.online', ({ visitor, view }) => {
      const online = frame(SocketCode.visitorOnline, view);
      return this.toListersOf(visitor, online, online);
    });
    events.on('visitor.offline', ({ visitor }) => {
      const offline = frame(SocketCode.visitorOffline, { YQToken: visitor.public_id });
      return this.toListersOf(visitor, offline, offline);
    });
    events.on('visitor.reconnected', ({ visitor, agent }) => this.accepted(visitor, agent));
    events.on('queue.changed', async ({ queue }) => {
      for (const [index, publicId] of queue.entries()) {
        await this.toVisitor(publicId, frame(SocketCode.waiting, { position: index + 1 }));
      }
    });
    events.on('conversation.opened', async ({ visitor, agent }) => {
      await this.stateChanged(visitor);
      if (agent) await this.accepted(visitor, agent);
    });
    events.on('conversation.assigned', async ({ visitor, agent }) => {
      await this.stateChanged(visitor);
      await this.accepted(visitor, agent);
    });
    events.on('conversation.handedOver', async ({ visitor, agent }) => {
      await this.stateChanged(visitor);
      if (agent) await this.accepted(visitor, agent);
    });
    events.on('robot.answering', ({ visitor, robot }) => this.toVisitor(visitor.public_id, frame(SocketCode.robot, robot)));
    events.on('conversation.transferred', async ({ visitor, to }) => {
      await this.stateChanged(visitor);
      await this.accepted(visitor, to);
    });
    events.on('conversation.requeued', ({ visitor }) => this.stateChanged(visitor));
    events.on('visitor.merged', async ({ from, into }) => {
      await this.stateChanged(from);
      await this.stateChanged(into);
    });
    events.on('conversation.ended', async ({ visitor, tellVisitor, rate }) => {
      // Its monitors were cleared with it: the next conversation's are read anew, in every process.
      await this.bus.publish({ type: 'monitors.changed', visitorId: visitor.id });
      await this.stateChanged({ ...visitor, state: 'end' });
      if (tellVisitor) await this.toVisitor(visitor.public_id, frame(SocketCode.ended, { rate }));
    });
    events.on('message.stored', async ({ visitor, message, visitorSees, alsoAgentsOf }) => {
      if (message.role === 'user') {
        await this.toListersOf(
          visitor,
          frame(SocketCode.visitorMessage, message, visitor.service_id ?? undefined),
          frame(SocketCode.listed, message),
        );
        // A signed-in user may have the chat open on several browsers (CONTRACT §13): each shows what was
        // typed on another at once (the sending one already holds it by onlyID). An anonymous visitor has one.
        if (visitor.user_id) await this.toVisitor(visitor.public_id, frame(SocketCode.visitorMessage, message));
        return;
      }
      if (message.role === 'tip') {
        const current = await this.agentsOf(visitor);
        const before = alsoAgentsOf ? await this.agentsOf(alsoAgentsOf) : [];
        const to = current === 'all' || before === 'all' ? 'all' : [...new Set([...current, ...before])];
        await this.toAgents(to, frame(SocketCode.tip, message, visitor.service_id ?? undefined), frame(SocketCode.listed, message));
        if (visitorSees) await this.toVisitor(visitor.public_id, frame(SocketCode.tip, message));
        return;
      }
      await this.toListersOf(
        visitor,
        frame(SocketCode.serviceMessage, message, message.serviceID ?? undefined),
        frame(SocketCode.listed, message),
      );
      await this.toVisitor(visitor.public_id, frame(SocketCode.serviceMessage, message));
    });
    events.on('message.withdrawn', async ({ visitor, onlyID }) => {
      const withdrawn = frame(SocketCode.withdrawn, { YQToken: visitor.public_id, onlyID });
      await this.toListersOf(visitor, withdrawn, withdrawn);
      await this.toVisitor(visitor.public_id, frame(SocketCode.withdrawn, { onlyID }));
    });
    // Only agents hear of a WeChat delivery: the visitor reads the message in WeChat itself.
    events.on('message.delivery', async ({ visitor, update }) => {
      const delivery = frame(SocketCode.delivery, update);
      await this.toListersOf(visitor, delivery, delivery);
    });
    events.on('note.created', async ({ visitor, note, visitorName }) => {
      // Those who read the conversation as it runs (its agent and monitors) and the author; never 'all',
      // never the visitor. The agents it mentions are told apart, on their own consoles only.
      const monitors = visitor.state === 'current' ? await this.monitors.of(visitor.id) : [];
      const readers = [note.serviceID, ...(visitor.service_id ? [visitor.service_id] : []), ...monitors];
      await this.toAgents([...new Set(readers)], frame(SocketCode.note, note));
      for (const uuid of note.mentions) await this.toAgents([uuid], frame(SocketCode.mentioned, { note, visitor: visitorName }));
    });
    // Leave-messages are for those who may read them: seeHistorical (and the Admin role, which holds everything).
    events.on('letter.created', async ({ letter }) =>
      this.toAgents(await this.agents.holdersOf('seePermissions:seeHistorical'), frame(SocketCode.letter, letter)),
    );
    events.on('robots.changed', ({ what, ids }) => this.bus.publish({ type: 'robots.changed', what, ...(ids ? { ids } : {}) }));
    events.on('agent.stateChanged', ({ uuid, state, online }) =>
      this.toAgents('all', frame(SocketCode.agentState, { uuid, state, online })),
    );
  }

  private stateChanged(visitor: Pick<VisitorRow, 'public_id' | 'state' | 'service_id'>): Promise<void> {
    return this.toAgents(
      'all',
      frame(SocketCode.visitorState, { YQToken: visitor.public_id, state: visitor.state as VisitorState, serviceID: visitor.service_id }),
    );
  }

  private accepted(visitor: Pick<VisitorRow, 'public_id'>, agent: AgentRef): Promise<void> {
    return this.toVisitor(
      visitor.public_id,
      frame(SocketCode.accepted, { serviceID: agent.uuid, nickname: agent.nickname, avatar: agent.avatar }),
    );
  }

  private async agentsOf(visitor: Audience): Promise<string[] | 'all'> {
    if (visitor.state !== 'current' || !visitor.service_id) return 'all';
    const monitors = await this.monitors.of(visitor.id);
    return [...new Set([visitor.service_id, ...monitors])];
  }

  private async toAgentsOf(visitor: Audience, frame: KnownFrame): Promise<void> {
    await this.toAgents(await this.agentsOf(visitor), frame);
  }

  /**
   * What changes a visitor's line in the workbench list (presence, last message, counts) reaches every
   * supervisor too, as `listed` for the others' supervisors: `GET /api/talk/userList` lists them every
   * conversation, someone else's included, whose line would otherwise keep what it showed before the
   * conversation became someone's. Messages go as 8013 so that they alert nobody, and monitoring alone
   * still brings a conversation's messages as they are (8005/8006).
   */
  private async toListersOf(visitor: Audience, frame: KnownFrame, listed: KnownFrame): Promise<void> {
    await this.toAgents(await this.agentsOf(visitor), frame, listed);
  }

  private async toAgents(to: string[] | 'all', frame: KnownFrame, supervisors?: KnownFrame): Promise<void> {
    await this.bus.publish({ type: 'frame.agents', to, frame, ...(supervisors && to !== 'all' ? { supervisors } : {}) });
  }

  /** To every socket of the visitor with this public id. */
  private async toVisitor(publicId: string, frame: KnownFrame): Promise<void> {
    await this.bus.publish({ type: 'frame.visitor', token: publicId, frame });
  }
}
