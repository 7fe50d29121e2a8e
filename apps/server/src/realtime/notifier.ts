import { type Frame, SocketCode } from '@parley/protocol';
import type { EventHub } from '../lib/events.js';
import type { ConversationRepository } from '../modules/conversations/repository.js';
import type { VisitorRow } from '../modules/visitors/repository.js';
import type { Bus } from './bus.js';

type Audience = Pick<VisitorRow, 'id' | 'state' | 'service_id'>;

/**
 * Turns domain events into socket frames and addresses them. A visitor's events go to its agent and the
 * supervisors monitoring it while the conversation is someone's; to every agent while it is waiting or
 * unassigned; and never to another visitor.
 */
export class Notifier {
  constructor(
    private readonly bus: Bus,
    private readonly conversations: ConversationRepository,
  ) {}

  subscribe(events: EventHub): void {
    events.on('visit.recorded', ({ visitor, visit }) =>
      this.toAgentsOf(visitor, { code: SocketCode.visit, data: { YQToken: visitor.public_id, ...visit } }),
    );
    events.on('visitor.typing', ({ visitor, text }) =>
      this.toAgentsOf(visitor, { code: SocketCode.typing, data: { YQToken: visitor.public_id, text } }),
    );
    events.on('visitor.online', ({ visitor, view }) => this.toAgentsOf(visitor, { code: SocketCode.visitorOnline, data: view }));
    events.on('visitor.offline', ({ visitor }) =>
      this.toAgentsOf(visitor, { code: SocketCode.visitorOffline, data: { YQToken: visitor.public_id } }),
    );
    events.on('visitor.reconnected', ({ visitor, agent }) =>
      this.toVisitor(visitor.public_id, {
        code: SocketCode.accepted,
        data: { serviceID: agent.uuid, nickname: agent.nickname, avatar: agent.avatar },
      }),
    );
    events.on('queue.changed', async ({ queue }) => {
      for (const [index, publicId] of queue.entries()) {
        await this.toVisitor(publicId, { code: SocketCode.waiting, data: { position: index + 1 } });
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
    events.on('conversation.transferred', async ({ visitor, to }) => {
      await this.stateChanged(visitor);
      await this.accepted(visitor, to);
    });
    events.on('conversation.ended', async ({ visitor, tellVisitor, rate }) => {
      await this.stateChanged({ ...visitor, state: 'end' });
      if (tellVisitor) await this.toVisitor(visitor.public_id, { code: SocketCode.ended, data: { rate } });
    });
    events.on('message.stored', async ({ visitor, message, visitorSees, alsoAgentsOf }) => {
      if (message.role === 'user') {
        await this.toAgentsOf(visitor, { code: SocketCode.visitorMessage, recipient: visitor.service_id ?? undefined, data: message });
        return;
      }
      if (message.role === 'tip') {
        const current = await this.agentsOf(visitor);
        const before = alsoAgentsOf ? await this.agentsOf(alsoAgentsOf) : [];
        const to = current === 'all' || before === 'all' ? 'all' : [...new Set([...current, ...before])];
        await this.toAgents(to, { code: SocketCode.tip, recipient: visitor.service_id ?? undefined, data: message });
        if (visitorSees) await this.toVisitor(visitor.public_id, { code: SocketCode.tip, data: message });
        return;
      }
      await this.toAgentsOf(visitor, { code: SocketCode.serviceMessage, recipient: message.serviceID ?? undefined, data: message });
      await this.toVisitor(visitor.public_id, { code: SocketCode.serviceMessage, data: message });
    });
    events.on('message.withdrawn', async ({ visitor, onlyID }) => {
      await this.toAgentsOf(visitor, { code: SocketCode.withdrawn, data: { YQToken: visitor.public_id, onlyID } });
      await this.toVisitor(visitor.public_id, { code: SocketCode.withdrawn, data: { onlyID } });
    });
    events.on('agent.stateChanged', ({ uuid, state, online }) =>
      this.toAgents('all', { code: SocketCode.agentState, data: { uuid, state, online } }),
    );
  }

  private stateChanged(visitor: Pick<VisitorRow, 'public_id' | 'state' | 'service_id'>): Promise<void> {
    return this.toAgents('all', {
      code: SocketCode.visitorState,
      data: { YQToken: visitor.public_id, state: visitor.state, serviceID: visitor.service_id },
    });
  }

  private accepted(visitor: Pick<VisitorRow, 'public_id'>, agent: { uuid: string; nickname: string; avatar: string }): Promise<void> {
    return this.toVisitor(visitor.public_id, {
      code: SocketCode.accepted,
      data: { serviceID: agent.uuid, nickname: agent.nickname, avatar: agent.avatar },
    });
  }

  private async agentsOf(visitor: Audience): Promise<string[] | 'all'> {
    if (visitor.state !== 'current' || !visitor.service_id) return 'all';
    const monitors = await this.conversations.monitorsOf(visitor.id);
    return [...new Set([visitor.service_id, ...monitors])];
  }

  private async toAgentsOf(visitor: Audience, frame: Frame): Promise<void> {
    await this.toAgents(await this.agentsOf(visitor), frame);
  }

  private async toAgents(to: string[] | 'all', frame: Frame): Promise<void> {
    await this.bus.publish({ type: 'frame.agents', to, frame });
  }

  /** To every socket of the visitor with this public id. */
  private async toVisitor(publicId: string, frame: Frame): Promise<void> {
    await this.bus.publish({ type: 'frame.visitor', token: publicId, frame });
  }
}
