import type { AgentIndex, AgentPeer, AgentState } from '@parley/protocol';
import type { AuthContext } from '../../lib/caller.js';
import type { EventHub } from '../../realtime/domain-events.js';
import { AgentPresenceStore } from '../../realtime/presence.js';
import type { AgentAvailabilityRepository } from './availability-repository.js';

const asState = (value: string | undefined): AgentState => (value === '1' ? '1' : '0');

/**
 * Agents as the workbench sees them: the availability each chooses (online or hidden) and whether a
 * console of theirs is open. Every change reaches the other agents (`agent.stateChanged`).
 */
export class AvailabilityService {
  constructor(
    private readonly repo: AgentAvailabilityRepository,
    private readonly events: EventHub,
    /** Runs when an agent may take conversations now: waiting visitors are handed out. */
    private readonly onAvailable: () => Promise<void>,
  ) {}

  async index(auth: AuthContext): Promise<AgentIndex> {
    const agent = await this.repo.findByUuid(this.repo.db, auth.uuid);
    return {
      info: { uuid: auth.uuid, nickname: auth.nickname, avatar: auth.avatar, state: asState(agent?.state) },
      userVoice: '/sounds/visitor.wav',
      msgVoice: '/sounds/message.wav',
    };
  }

  /** Online ('0') or hidden ('1'); going online hands out waiting visitors. */
  async setState(auth: AuthContext, state: AgentState): Promise<{ state: AgentState }> {
    const online = await this.repo.isPresent(auth.uuid, AgentPresenceStore.freshSince());
    const changed = { uuid: auth.uuid, state, online };
    await this.repo.db.transaction().execute(async (tx) => {
      await this.repo.updateState(auth.uuid, state, tx);
      await this.events.record(tx, 'agent.stateChanged', changed);
    });
    await this.events.emit('agent.stateChanged', changed);
    if (state === '0') await this.onAvailable();
    return { state };
  }

  /** A console of the agent opened or closed on this process: tells everyone whether one is open anywhere. */
  async consoleChanged(uuid: string): Promise<void> {
    const agent = await this.repo.findByUuid(this.repo.db, uuid);
    if (!agent) return;
    const online = await this.repo.isPresent(uuid, AgentPresenceStore.freshSince());
    const changed = { uuid, state: asState(agent.state), online };
    // Nothing of the agent's row changes: the event's record stands alone.
    await this.repo.db.transaction().execute((tx) => this.events.record(tx, 'agent.stateChanged', changed));
    await this.events.emit('agent.stateChanged', changed);
  }

  async peers(): Promise<{ list: AgentPeer[] }> {
    const rows = await this.repo.peers(AgentPresenceStore.freshSince());
    return {
      list: rows.map((row) => ({
        uuid: row.uuid,
        nickname: row.nickname,
        avatar: row.avatar,
        state: asState(row.state),
        online: Boolean(row.present),
        username: row.username,
        open: Number(row.open ?? 0),
        maxChats: row.max_chats,
      })),
    };
  }
}
