import { randomBytes } from 'node:crypto';
import type { AgentState, CensusAgentState } from '@parley/protocol';
import { dayBounds, dayOf } from '../../lib/time.js';
import type { Bus } from '../../realtime/bus.js';
import type { EventHub } from '../../realtime/domain-events.js';
import type { CensusRepository } from './repository.js';

const DAY_MS = 86_400_000;

/** How the statistics name an agent's state: a closed console is offline whatever was chosen. */
export function censusState(state: AgentState, online: boolean): CensusAgentState {
  if (!online) return 'offline';
  return state === '1' ? 'hidden' : 'online';
}

/**
 * How long a dropped day is taken for still dropped without word that it was counted again: longer than
 * the bus keeps an event while Redis is away, so that a word lost with it (or a rebuild run outside the
 * server, which tells no one) costs a drop of the day again after this, never a stale rollup for ever.
 */
const REMEMBER_MS = 10 * 60_000;

/**
 * How long a day counted again is left in the rollup before a change that may have been missed drops it
 * again: the statistics read that counted it reads it next, within its budget of a second.
 */
const RECOUNT_GRACE_MS = 5000;

interface Dropped {
  /** When it was dropped (performance.now). */
  at: number;
  /** When a change last hit it since; null when none did. */
  touchedAt: number | null;
  /** A drop again is due (RECOUNT_GRACE_MS). */
  due: boolean;
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
 *
 * A dropped day stays out of the rollup until a statistics read counts it again (fillDays), so it is
 * dropped once, not for every message: the days dropped are remembered, and a later change to one of
 * them only marks when it touched it. Every count of days is told to every process (after it was kept
 * and checked): the counting one directly, with when its count began, the others through the bus
 * ('census.counted'). Each process then forgets the days counted that no change touched since it dropped
 * them (or, in the counting process, none since the count began: the count read those changes), so the
 * next change drops them again; the others it drops again shortly, as the count may have missed their
 * change. Why no change is left out of the rollup with several processes:
 * - a change committed before a count's last check is in the count, or the check drops its day
 *   (CensusRepository.countDays compares the late figures before the reads and after the count is kept);
 * - a change committed after that check reaches a recorder after it: either the day is not remembered
 *   there and is dropped then, after the count; or it is remembered and the change marks it, and the
 *   count's word, heard before or after, drops it again or finds a later drop that did;
 * - months follow their days: a drop deletes the days before their months, and a month is summed only
 *   while all its days are kept, and dropped when one went meanwhile (countMonth).
 */
export class CensusRecorder {
  constructor(
    private readonly repo: CensusRepository,
    private readonly bus: Bus,
    private readonly now: () => number,
    private readonly timeZone: () => string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** This process among those telling counts through the bus: its own word it has heard directly. */
  private readonly id = randomBytes(8).toString('hex');

  /** When each open conversation this process has seen began (ms), by visitor id. */
  private readonly started = new Map<number, number>();

  /** The days this process dropped, as dropDays names them. */
  private readonly dropped = new Map<string, Dropped>();

  subscribe(events: EventHub): void {
    events.on('agent.stateChanged', ({ uuid, state, online }) => this.repo.logState(uuid, censusState(state, online), this.at()));
    // A transfer and an end change the figures of the day the conversation began on (its agents, its
    // length), as a message does: a conversation over midnight drops that day too.
    events.on('conversation.transferred', async ({ visitor, from, to }) => {
      await this.repo.logTransfer(visitor.id, from, to.uuid, this.at());
      await this.changed(visitor.id);
    });
    events.on('conversation.opened', ({ visitor }) => {
      this.started.set(visitor.id, this.now());
    });
    events.on('conversation.ended', async ({ visitor }) => {
      await this.changed(visitor.id);
      this.started.delete(visitor.id);
    });
    events.on('message.stored', async ({ visitor, message }) => {
      if (message.role === 'tip') return;
      await this.changed(visitor.id);
    });
    events.on('conversation.rated', async ({ conversationId }) => {
      const started = await this.repo.conversationStarted(conversationId);
      if (started) await this.touched(Date.parse(started));
    });
    this.repo.onCounted = (first, last, since) => {
      this.counted(first, last, since);
      void this.bus.publish({ type: 'census.counted', first, last, by: this.id });
    };
    this.bus.subscribe((event) => {
      if (event.type === 'census.counted' && event.by !== this.id) this.counted(event.first, event.last);
    });
  }

  /** The visitor's open (or just ended) conversation changed. */
  private async changed(visitorId: number): Promise<void> {
    let at = this.started.get(visitorId);
    if (at === undefined) {
      // Opened in another process, or before this one started: read once, then remember.
      const started = await this.repo.latestStarted(visitorId);
      if (!started) return;
      at = Date.parse(started);
      this.started.set(visitorId, at);
    }
    await this.touched(at);
  }

  /** Today in the site's zone, as the instant it began: worked out once a day, not for every message. */
  private today: { zone: string; from: number; next: number } | undefined;

  private todayBegan(zone: string): number {
    const now = this.now();
    const today = this.today;
    if (today && today.zone === zone && now >= today.from && now < today.next) return today.from;
    const { from, to } = dayBounds(dayOf(now, zone), zone);
    this.today = { zone, from: Date.parse(from), next: Date.parse(to) + 1 };
    return this.today.from;
  }

  /** A change to a conversation begun at `at` (ms): its day leaves the rollup unless it is still today. */
  private async touched(at: number): Promise<void> {
    const zone = this.timeZone();
    if (at >= this.todayBegan(zone)) return;
    const day = dayOf(at, zone);
    // The same instant is on a neighbouring day in other zones: their rows go too.
    const days = [...new Set([day, ...[-1, 0, 1].map((shift) => new Date(at + shift * DAY_MS).toISOString().slice(0, 10))])];
    const now = performance.now();
    const known = days.map((one) => this.dropped.get(one));
    if (known.every((entry) => entry && now - entry.at < REMEMBER_MS)) {
      for (const entry of known) if (entry) entry.touchedAt = now;
      return;
    }
    for (const [one, entry] of this.dropped) if (now - entry.at >= REMEMBER_MS) this.dropped.delete(one);
    await this.drop(days);
  }

  /**
   * The rollup counted `first..last` again, in this process from `since` (performance.now), else in
   * another: forget the days no change touched since, drop the others again after the grace.
   */
  private counted(first: string, last: string, since?: number): void {
    const again: string[] = [];
    for (const [day, entry] of this.dropped) {
      if (day < first || day > last || entry.due) continue;
      if (entry.touchedAt === null || (since !== undefined && entry.touchedAt < since)) this.dropped.delete(day);
      else {
        entry.due = true;
        again.push(day);
      }
    }
    if (again.length === 0) return;
    setTimeout(() => this.drop(again).catch(this.onError), RECOUNT_GRACE_MS).unref();
  }

  /** Drops the days, remembered from before the statement on: a change meanwhile is in it or marks them. */
  private async drop(days: string[]): Promise<void> {
    const at = performance.now();
    for (const day of days) this.dropped.set(day, { at, touchedAt: null, due: false });
    try {
      await this.repo.dropDays(days);
    } catch (error) {
      // Not dropped: the next change tries again.
      for (const day of days) this.dropped.delete(day);
      throw error;
    }
  }

  private at(): string {
    return new Date(this.now()).toISOString();
  }
}
