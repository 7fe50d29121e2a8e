import type { Frame } from '@parley/protocol';
import type { Bus } from '../../realtime/bus.js';
import type { ChatRepository, VisitorRow } from './repository.js';

/**
 * Addresses frames. A visitor's events go to its agent and the supervisors monitoring it while the
 * conversation is someone's; to every agent while it is waiting or unassigned; and never to another
 * visitor.
 */
export class Notifier {
  constructor(
    private readonly bus: Bus,
    private readonly repo: ChatRepository,
  ) {}

  async agentsOf(visitor: Pick<VisitorRow, 'id' | 'state' | 'service_id'>): Promise<string[] | 'all'> {
    if (visitor.state !== 'current' || !visitor.service_id) return 'all';
    const monitors = await this.repo.monitorsOf(visitor.id);
    return [...new Set([visitor.service_id, ...monitors])];
  }

  async toAgentsOf(visitor: Pick<VisitorRow, 'id' | 'state' | 'service_id'>, frame: Frame): Promise<void> {
    await this.bus.publish({ type: 'frame.agents', to: await this.agentsOf(visitor), frame });
  }

  async toAgents(to: string[] | 'all', frame: Frame): Promise<void> {
    await this.bus.publish({ type: 'frame.agents', to, frame });
  }

  /** To every socket of the visitor with this public id. */
  async toVisitor(publicId: string, frame: Frame): Promise<void> {
    await this.bus.publish({ type: 'frame.visitor', token: publicId, frame });
  }
}
