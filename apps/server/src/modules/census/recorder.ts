import type { AgentState, CensusAgentState } from '@parley/protocol';
import type { EventHub } from '../../lib/events.js';
import type { CensusRepository } from './repository.js';

/** How the statistics name an agent's state: a closed console is offline whatever was chosen. */
export function censusState(state: AgentState, online: boolean): CensusAgentState {
  if (!online) return 'offline';
  return state === '1' ? 'hidden' : 'online';
}

/**
 * Keeps what the statistics read beside the raw tables, as the events happen: the agents' state log and
 * transfers. Each is also derivable from the raw tables (migration 017 fills them so), so a lost event
 * costs a figure, never data. A conversation's message count and first response are not kept here but in
 * the transaction that stores each message (ConversationRepository.countMessage): once per message, they
 * would cost the hot path statements of their own.
 */
export class CensusRecorder {
  constructor(
    private readonly repo: CensusRepository,
    private readonly now: () => number,
  ) {}

  subscribe(events: EventHub): void {
    events.on('agent.stateChanged', ({ uuid, state, online }) => this.repo.logState(uuid, censusState(state, online), this.at()));
    events.on('conversation.transferred', ({ visitor, from, to }) => this.repo.logTransfer(visitor.id, from, to.uuid, this.at()));
  }

  private at(): string {
    return new Date(this.now()).toISOString();
  }
}
