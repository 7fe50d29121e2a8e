import type { AgentState, CensusAgentState } from '@parley/protocol';
import type { EventHub } from '../../lib/events.js';
import { dayOf } from '../../lib/time.js';
import type { CensusRepository } from './repository.js';

const DAY_MS = 86_400_000;

/** How the statistics name an agent's state: a closed console is offline whatever was chosen. */
export function censusState(state: AgentState, online: boolean): CensusAgentState {
  if (!online) return 'offline';
  return state === '1' ? 'hidden' : 'online';
}

/**
 * Keeps what the statistics read beside the raw tables, as the events happen: the agents' state log and
 * transfers. Each is also derivable from the raw tables (migration 017 fills them so), so a lost event
 * costs a figure, never data. A conversation's message count and first response are kept in the
 * transaction that stores each message (ConversationRepository.countMessage), not here.
 *
 * The daily rollup (census_days) holds closed days only. A message or a rating can still land on a
 * conversation begun on one (a chat over midnight, a late rating): that day is dropped from the rollup
 * and counted again from the raw tables on the next read. Which day each open conversation began on is
 * remembered here, so a message costs no statement unless its conversation began before today.
 */
export class CensusRecorder {
  constructor(
    private readonly repo: CensusRepository,
    private readonly now: () => number,
    private readonly timeZone: () => string,
  ) {}

  /** When each open conversation this process has seen began (ms), by visitor id. */
  private readonly started = new Map<number, number>();

  subscribe(events: EventHub): void {
    events.on('agent.stateChanged', ({ uuid, state, online }) => this.repo.logState(uuid, censusState(state, online), this.at()));
    events.on('conversation.transferred', ({ visitor, from, to }) => this.repo.logTransfer(visitor.id, from, to.uuid, this.at()));
    events.on('conversation.opened', ({ visitor }) => {
      this.started.set(visitor.id, this.now());
    });
    events.on('conversation.ended', ({ visitor }) => {
      this.started.delete(visitor.id);
    });
    events.on('message.stored', async ({ visitor, message }) => {
      if (message.role === 'tip') return;
      let at = this.started.get(visitor.id);
      if (at === undefined) {
        // Opened in another process, or before this one started: read once, then remember.
        const started = await this.repo.latestStarted(visitor.id);
        if (!started) return;
        at = Date.parse(started);
        this.started.set(visitor.id, at);
      }
      await this.touched(new Date(at).toISOString());
    });
    events.on('conversation.rated', async ({ conversationId }) => {
      const started = await this.repo.conversationStarted(conversationId);
      if (started) await this.touched(started);
    });
  }

  /** A change to a conversation begun at `started`: its day leaves the rollup unless it is still today. */
  private async touched(started: string): Promise<void> {
    const zone = this.timeZone();
    const at = Date.parse(started);
    const day = dayOf(at, zone);
    if (day >= dayOf(this.now(), zone)) return;
    // The same instant is on a neighbouring day in other zones: their rows go too.
    const days = new Set([day, ...[-1, 0, 1].map((shift) => new Date(at + shift * DAY_MS).toISOString().slice(0, 10))]);
    await this.repo.dropDays([...days]);
  }

  private at(): string {
    return new Date(this.now()).toISOString();
  }
}
