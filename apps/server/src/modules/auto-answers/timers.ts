import { localized, type SettingsOf } from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from '../../db/errors.js';
import type { VisitorRow } from '../../db/schema.js';
import type { EventHub } from '../../realtime/domain-events.js';
import { visitorLang } from '../visitors/views.js';
import { keywordReply } from './keywords.js';
import { type TimerKind, type TimerRepository, type TimerRow, UNARMED } from './timers-repository.js';

const MINUTE_MS = 60_000;
/** How long a process may hold a claimed timer; one that died meanwhile leaves it to the others after this. */
const CLAIM_MS = 60_000;
/** Due rows taken per poll; more wait for the next poll, which follows at once. */
const BATCH = 50;
/** Visitors whose last message time is kept in memory (see lastWrote); the stored messages tell the rest. */
const REMEMBERED_VISITORS = 100_000;

/** What the timers do when they come due: the conversation service's own paths. */
export interface TimerActions {
  visitor(id: number): Promise<VisitorRow | undefined>;
  /** Sends a configured text as a tip the visitor sees. */
  say(visitor: VisitorRow, text: string): Promise<void>;
  /** Ends the conversation for the visitor's silence. */
  closeInactive(visitor: VisitorRow): Promise<void>;
}

export interface TimerSettings {
  autoAnswer: () => SettingsOf<'autoAnswer'>;
  autoCloseMinutes: () => number;
}

/** A timed text as configured now: undefined when its minutes are 0 or its text is empty. */
function timed(setting: { minutes: number; text: string }): { ms: number; text: string } | undefined {
  if (setting.minutes <= 0 || setting.text.trim() === '') return undefined;
  return { ms: setting.minutes * MINUTE_MS, text: setting.text };
}

/**
 * The auto answers that follow the chat as it goes on: keyword replies at once, and the timed ones (a
 * reminder to an idle visitor, a word while the agent is silent, closing a conversation the visitor left
 * silent). The chat's events arm and disarm durable timers; each process polls for the due ones and
 * acts only on those it claims, so a timer fires once however many processes run, and one that came due
 * while no process ran fires at the next start.
 */
export class ConversationTimers {
  /**
   * When each visitor in an open conversation last wrote through this process, on the timers' clock.
   * Auto close reads it when due, with the last stored message's time: the later of the two counts, so a
   * visitor who wrote through another process (or before a restart) is seen too.
   */
  private readonly lastWrote = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly repo: TimerRepository,
    private readonly actions: TimerActions,
    private readonly settings: TimerSettings,
    private readonly log: FastifyBaseLogger,
    private readonly pollMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private at(ms: number): string {
    return new Date(this.now() + ms).toISOString();
  }

  subscribe(events: EventHub): void {
    events.on('conversation.opened', async ({ visitor, agent }) => {
      if (agent) await this.repo.arm(visitor.id, this.closing());
    });
    // The visitor wrote while it waited, or asked the robot for a person: the agent now has something to answer.
    events.on('conversation.assigned', ({ visitor }) => this.visitorWaits(visitor.id));
    events.on('conversation.handedOver', async ({ visitor, agent }) => {
      if (agent) await this.visitorWaits(visitor.id);
    });
    events.on('conversation.ended', ({ visitor }) => {
      this.lastWrote.delete(visitor.id);
      return this.repo.clear(visitor.id, ['idle', 'agentSilent', 'autoClose']);
    });
    events.on('settings.changed', async ({ page }) => {
      const minutes = this.settings.autoCloseMinutes();
      if (page === 'windowSetting' && minutes > 0) await this.repo.closeBy(this.at(minutes * MINUTE_MS));
    });
    // Each message costs at most one statement here, none while the agent-silent answer is off. Rows
    // armed under other settings are not cleared per message: a timer checks the settings and the chat
    // when it fires (see fire), so a stale one does nothing; auto close, armed when the conversation
    // went to its agent, is not moved by each visitor message either: when due, it looks at the
    // visitor's last message and waits on from there.
    events.on('message.stored', async ({ visitor, message }) => {
      if (message.role === 'user') {
        if (visitor.state !== 'end') this.wrote(visitor.id);
        // An idle reminder armed by the agent's last message stays: it sees this message when it comes due.
        if (visitor.state === 'current') await this.agentOwesAnswer(visitor.id);
        // While the robot answers, the keyword replies would only talk over it.
        if (message.type === 'text' && visitor.state !== 'end' && visitor.state !== 'robot')
          await this.answerKeyword(visitor.id, message.msg);
      } else if (message.role === 'service') {
        const idle = timed(this.settings.autoAnswer().idle);
        const silent = timed(this.settings.autoAnswer().agentSilent);
        if (!idle && !silent) return;
        // The agent answered: the reminder counts from now, and the next visitor message starts a new silence.
        await this.repo.arm(visitor.id, { ...(idle ? { idle: this.at(idle.ms) } : {}), agentSilent: UNARMED });
      }
    });
  }

  /**
   * Notes the visitor's message, newest last; a conversation ended through another process is never
   * told here, so the oldest entries go once there are more than any process holds open.
   */
  private wrote(visitorId: number): void {
    this.lastWrote.delete(visitorId);
    this.lastWrote.set(visitorId, this.now());
    if (this.lastWrote.size > REMEMBERED_VISITORS) {
      for (const oldest of this.lastWrote.keys()) {
        this.lastWrote.delete(oldest);
        break;
      }
    }
  }

  /** The auto close due time as configured now, if it is on. */
  private closing(): { autoClose?: string } {
    const minutes = this.settings.autoCloseMinutes();
    return minutes > 0 ? { autoClose: this.at(minutes * MINUTE_MS) } : {};
  }

  /**
   * The visitor wrote, or was given to an agent: its silence counts from now, and the agent's from the
   * first message it left unanswered (an armed agentSilent keeps its time).
   */
  private async visitorWaits(visitorId: number): Promise<void> {
    const silent = timed(this.settings.autoAnswer().agentSilent);
    await this.repo.arm(visitorId, { ...this.closing(), ...(silent ? { agentSilent: this.at(silent.ms) } : {}) });
  }

  /** The visitor wrote to its agent: the agent's silence counts from the first message it left unanswered. */
  private async agentOwesAnswer(visitorId: number): Promise<void> {
    const silent = timed(this.settings.autoAnswer().agentSilent);
    if (silent) await this.repo.arm(visitorId, { agentSilent: this.at(silent.ms) });
  }

  /** The message path tells only part of the visitor (MessagePathVisitor): the whole row is read for a reply. */
  private async answerKeyword(visitorId: number, text: string): Promise<void> {
    const reply = keywordReply(this.settings.autoAnswer().keywords, text);
    if (reply === undefined) return;
    const visitor = await this.actions.visitor(visitorId);
    if (visitor) await this.actions.say(visitor, localized(reply, visitorLang(visitor)));
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.poll()
        .then((more) => this.schedule(more ? 0 : this.pollMs))
        .catch((error: unknown) => {
          if (isDatabaseUnavailable(error)) this.log.warn({ err: error }, 'conversation timers wait for the database');
          else this.log.error({ err: error }, 'conversation timers failed');
          this.schedule(this.pollMs);
        });
    }, ms);
    this.timer.unref();
  }

  /** Acts on the due timers this process claims; true when a full batch suggests more are due. */
  async poll(): Promise<boolean> {
    const now = this.now();
    const nowIso = new Date(now).toISOString();
    const rows = await this.repo.due(nowIso, BATCH);
    for (const row of rows) {
      if (this.stopped) return false;
      if (!(await this.repo.claim(row, nowIso, new Date(now + CLAIM_MS).toISOString()))) continue;
      try {
        await this.fire(row);
        // One notice per silence of the agent: later visitor messages must not arm it again until the agent answers.
        if (row.kind === 'agentSilent') await this.repo.spend(row);
        else await this.repo.done(row);
      } catch (error) {
        // Left claimed: once the claim lapses, this process or another tries again.
        this.log.error({ err: error, timer: row.kind, visitor: row.visitor_id }, 'conversation timer failed');
      }
    }
    return rows.length === BATCH;
  }

  /** Acts on a due timer if the conversation and the settings still call for it. */
  private async fire(row: TimerRow): Promise<void> {
    const visitor = await this.actions.visitor(row.visitor_id);
    if (visitor?.state !== 'current') return;
    const kind = row.kind as TimerKind;
    if (kind === 'autoClose') {
      const minutes = this.settings.autoCloseMinutes();
      if (minutes <= 0) return;
      // The visitor may have written since the timer was armed: the silence counts from its last message.
      const stored = Date.parse((await this.repo.visitorLastWrote(visitor.id)) ?? '');
      const wrote = Math.max(this.lastWrote.get(visitor.id) ?? 0, Number.isNaN(stored) ? 0 : stored);
      const silentUntil = wrote + minutes * MINUTE_MS;
      if (silentUntil > this.now()) return this.repo.arm(visitor.id, { autoClose: new Date(silentUntil).toISOString() });
      await this.actions.closeInactive(visitor);
      return;
    }
    const setting = timed(this.settings.autoAnswer()[kind]);
    if (!setting) return;
    // The visitor's messages leave the reminder armed; one written since the agent's last message answers it.
    if (kind === 'idle' && (await this.repo.visitorSpokeLast(visitor.id))) return;
    await this.actions.say(visitor, localized(setting.text, visitorLang(visitor)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
