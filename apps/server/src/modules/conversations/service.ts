import { randomBytes } from 'node:crypto';
import {
  localized,
  type Message,
  type MessageType,
  type TipKind,
  TRANSFER_TO_QUEUE,
  type Visit,
  type Visitor,
  type VisitorState,
} from '@parley/protocol';
import type { Transaction } from 'kysely';
import { isUniqueViolation } from '../../db/errors.js';
import { GroupCommit, type Shared } from '../../db/group-commit.js';
import type { Database, MessagePathVisitor, MessageRow, VisitorRow } from '../../db/schema.js';
import { type AuthContext, isSupervisor } from '../../lib/caller.js';
import { ApiError, conflict, forbidden, notFound } from '../../lib/errors.js';
import { isoNow } from '../../lib/time.js';
import { hashToken } from '../../lib/tokens.js';
import { ValidationError } from '../../lib/validate.js';
import type { AgentRef, EventHub } from '../../realtime/domain-events.js';
import { AgentPresenceStore } from '../../realtime/presence.js';
import type { AgentAvailabilityRepository } from '../agents/availability-repository.js';
import { regionBlocked } from '../regions/rules.js';
import type { VisitorRepository } from '../visitors/repository.js';
import { INITIAL_MESSAGES, type VisitorService } from '../visitors/service.js';
import { toMessage, toVisit, toVisitor, visitorLang, visitorNickname } from '../visitors/views.js';
import { type AutoAnswerSource, type Opening, openingAnswers } from './auto-answers.js';
import type { ConversationOutboxes } from './outboxes.js';
import type { ConversationRepository, VisitorWrite, VisitorWrote } from './repository.js';
import { type RobotDesk, RobotTurns } from './robot-turns.js';
import type { Routing } from './routing.js';

export const WITHDRAW_WINDOW_MS = 2 * 60 * 1000;
const CATCH_UP_LIMIT = 200;

/** Who sent a message, for idempotency: a resend returns the stored message to its own sender only. */
type Sender = { role: 'user' } | { role: 'service'; uuid: string };

/** The stored message of a resent onlyID; 409 when someone else used that onlyID for this visitor. */
function resentBy(sender: Sender, row: MessageRow): MessageRow {
  const own = sender.role === 'user' ? row.role === 'user' : row.role === 'service' && row.service_id === sender.uuid;
  if (!own) throw conflict('onlyIdTaken');
  return row;
}

/** A visitor's message written by the batch's statement alone (writesOnlyTheMessage): what it stored, as written. */
const wroteAlone = (wrote: VisitorWrote) => ({ row: wrote.message, visitor: wrote.visitor, opened: undefined });

/**
 * Conversations: their messages and who answers them. Every message is stored (with its seq, in one
 * transaction) before anyone is told; events go out once the transaction has committed.
 */
export class ConversationService {
  constructor(
    private readonly repo: ConversationRepository,
    private readonly visitorRepo: VisitorRepository,
    private readonly visitors: VisitorService,
    private readonly agents: AgentAvailabilityRepository,
    readonly routing: Routing,
    private readonly events: EventHub,
    private readonly autoAnswers: AutoAnswerSource,
    /** The longest visitor message the chat window settings allow now. */
    private readonly maxLength: () => number,
    private readonly robot: RobotDesk,
    /** Written in each message's transaction: see ConversationOutboxes. */
    private readonly outboxes: ConversationOutboxes,
  ) {
    this.robotTurns = new RobotTurns(repo, visitorRepo, events, outboxes, robot, (visitor) => this.handOver(visitor));
  }

  /** What the robot says to visitors in robot state; it hands one over to a person as a visitor can. */
  private readonly robotTurns: RobotTurns;

  private get db() {
    return this.repo.db;
  }

  /** Messages sent within one tick (or while the last batch commits) share a transaction: see GroupCommit. */
  private readonly commits = new GroupCommit(() => this.db);

  // ---------------------------------------------------------------- visitor side

  async visitorMessages(credential: string, afterSeq: number | undefined): Promise<{ list: Message[] }> {
    const visitor = await this.visitors.orFail(credential);
    const rows = await this.repo.listMessages(visitor.id, { afterSeq, limit: afterSeq === undefined ? INITIAL_MESSAGES : CATCH_UP_LIMIT });
    return { list: rows.map((row) => toMessage(row, visitor.public_id)) };
  }

  /**
   * A visitor's message; opens a conversation (robot, agent or queue) when none is open. Idempotent on
   * onlyID. In robot state the robot's answer follows, made by this process (the one that stored the
   * question) without holding the visitor's send up.
   */
  async visitorMessage(credential: string, input: { msg: string; onlyID: string; type?: MessageType | undefined }): Promise<Message> {
    // The widget stops typing at the limit; a client that does not is refused here all the same.
    const max = this.maxLength();
    if ((input.type ?? 'text') === 'text' && input.msg.length > max) throw new ValidationError('msg', 'reasonTooLong', { max });
    let outcome: {
      row: MessageRow;
      /** Only what the message's path reads of the visitor (MessagePathVisitor); `opened` holds all of it. */
      visitor: MessagePathVisitor;
      opened: { visitor: VisitorRow; agent: AgentRef | null; welcome: MessageRow | null } | undefined;
    };
    try {
      const tokenHash = hashToken(credential);
      const createdAt = isoNow();
      const write: VisitorWrite = { tokenHash, onlyId: input.onlyID, type: input.type ?? 'text', msg: input.msg, createdAt };
      const work = async (tx: Transaction<Database>, shared: Shared<VisitorWrote>) => {
        if (this.repo.visitorWritesAtOnce) {
          // On PostgreSQL a message in an open conversation is one statement, shared by the batch's visitor
          // messages; a refusal after it rolls it back. Where the batch's statement wrote nothing for this
          // one, an earlier unit may have opened the conversation since: try again alone.
          const wrote = shared?.result ?? (await this.repo.visitorWrites(tx, write));
          if (wrote && this.routing.blocked(wrote.visitor.region_code)) throw regionBlocked();
          if (wrote) this.visitors.refuseAnonymous(wrote.visitor);
          if (wrote) {
            await this.outboxes.stored(tx, wrote.visitor, wrote.message, false);
            return { row: wrote.message, visitor: wrote.visitor, opened: undefined };
          }
        }
        // Most messages join an open conversation: one statement takes the seq and reads the visitor (on
        // PostgreSQL it was tried above already).
        let visitor = this.repo.visitorWritesAtOnce ? undefined : await this.visitorRepo.takeSeqInConversation(tx, tokenHash);
        // A region blocked while its visitor's conversation was open stops it too; throwing gives the seq back.
        if (visitor && this.routing.blocked(visitor.region_code)) throw regionBlocked();
        if (visitor) this.visitors.refuseAnonymous(visitor);
        let opened: { visitor: VisitorRow; agent: AgentRef | null; welcome: MessageRow | null } | undefined;
        if (!visitor) {
          const closed = await this.visitors.orFail(credential, tx);
          if (this.routing.blocked(closed.region_code)) throw regionBlocked();
          this.visitors.refuseAnonymous(closed);
          const agent = (await this.routing.pickAgent(tx, closed.id)) ?? null;
          const robot = this.robotTurns.takes(agent);
          await this.routing.open(tx, closed, robot ? 'robot' : agent);
          // The robot's welcome comes first, so the visitor reads it above their own question.
          const welcome = robot ? await this.robotTurns.storeWelcome(tx, closed) : null;
          visitor = await this.visitorRepo.takeSeqInConversation(tx, tokenHash);
          // The opening tells the whole visitor (to the agents' lists, to the webhooks): read once per conversation.
          const whole = visitor && (await this.visitorRepo.findById(tx, visitor.id));
          if (!visitor || !whole) throw new Error('a conversation just opened is not open');
          opened = { visitor: whole, agent: robot ? null : agent, welcome };
        }
        // A resent onlyID fails the unique index here and rolls all of this back (see the catch).
        const row = await this.repo.storeMessage(
          tx,
          visitor.id,
          visitor.last_seq,
          {
            only_id: input.onlyID,
            role: 'user',
            type: input.type ?? 'text',
            msg: input.msg,
            nickname: visitorNickname(visitor),
            service_id: visitor.service_id,
            created_at: createdAt,
          },
          null,
        );
        await this.outboxes.stored(tx, visitor, row, false);
        return { row, visitor, opened };
      };
      outcome = this.repo.visitorWritesAtOnce
        ? await this.commits.run(work, this.repo.visitorWritesMany, write, (await this.writesOnlyTheMessage()) ? wroteAlone : undefined)
        : await this.commits.run((tx) => work(tx, undefined));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // A resend of a stored message, or two copies of one send that raced: the stored one answers.
      const visitor = await this.visitors.orFail(credential);
      const existing = await this.repo.findMessageByOnlyId(this.db, visitor.id, input.onlyID);
      if (!existing) throw error;
      return toMessage(resentBy({ role: 'user' }, existing), visitor.public_id);
    }
    const message = toMessage(outcome.row, outcome.visitor.public_id);
    const withRobot = outcome.visitor.state === 'robot';
    if (outcome.opened && withRobot) await this.robotTurns.opened(outcome.opened.visitor, outcome.opened.welcome);
    else if (outcome.opened) await this.routing.opened(outcome.opened.visitor, outcome.opened.agent);
    await this.events.emit('message.stored', { visitor: outcome.visitor, message, visitorSees: false });
    if (withRobot) this.robotTurns.answer(outcome.visitor, message);
    else if (outcome.opened) await this.answerOpening(outcome.opened.visitor, message.seq === 1, outcome.opened.agent);
    return message;
  }

  /**
   * Whether a visitor's message into a conversation under way is its one statement and nothing more
   * (PostgreSQL's batch statement may then commit by itself): no region is blocked and no identity asked
   * for, so nothing can refuse it once written, and no outbox writes for it.
   */
  private async writesOnlyTheMessage(): Promise<boolean> {
    return !this.routing.blocksAny() && !this.visitors.refusesAnonymous && (await this.outboxes.quietOnVisitorMessages());
  }

  /** The visitor's "talk to a person": from robot state to an agent or the queue; other states stay. */
  async visitorHandover(credential: string): Promise<{ state: VisitorState }> {
    const visitor = await this.visitors.orFail(credential);
    this.visitors.refuseBlockedRegion(visitor.region_code);
    if (visitor.state === 'robot') await this.handOver(visitor);
    const now = await this.visitorRepo.findById(this.db, visitor.id);
    return { state: (now?.state ?? visitor.state) as VisitorState };
  }

  /**
   * Routes a robot-state visitor as a new conversation would go: to an available agent (`2000`), else
   * the queue (`2001`) with the queued or no-agent auto answer. The agent reads the robot's part above.
   */
  private async handOver(visitor: Pick<VisitorRow, 'id'>): Promise<void> {
    const handed = await this.db.transaction().execute(async (tx) => {
      const agent = (await this.routing.pickAgent(tx, visitor.id)) ?? null;
      const to = agent
        ? { state: 'current', service_id: agent.uuid, wait_since: null }
        : { state: 'wait', service_id: null, wait_since: isoNow() };
      if (!(await this.visitorRepo.transition(tx, visitor.id, { states: ['robot'] }, to))) return undefined;
      const conversation = await this.repo.latest(tx, visitor.id);
      if (conversation && !conversation.ended_at) await this.repo.update(tx, conversation.id, { service_id: agent?.uuid ?? null });
      const row = await this.visitorRepo.findById(tx, visitor.id);
      if (!row) return undefined;
      await this.events.record(tx, 'conversation.handedOver', { visitor: row, agent });
      return { visitor: row, agent };
    });
    if (!handed) return;
    await this.events.emit('conversation.handedOver', handed);
    await this.addTip(handed.visitor, 'tip.robotHandover', this.robot.responder.profile().name, true);
    if (!handed.agent) await this.routing.queueChanged();
    await this.answerOpening(handed.visitor, false, handed.agent);
  }

  /** The configured auto answers of a conversation the visitor's message just opened, stored as tips. */
  private async answerOpening(visitor: VisitorRow, firstConversation: boolean, agent: AgentRef | null): Promise<void> {
    let opening: Opening = { kind: 'agent' };
    if (!agent) {
      const anyoneOnline = (await this.agents.available(this.db, AgentPresenceStore.freshSince())).length > 0;
      const position = (await this.visitorRepo.waiting(this.db)).findIndex((row) => row.id === visitor.id) + 1;
      opening = anyoneOnline && position > 0 ? { kind: 'queued', position } : { kind: 'noAgent' };
    }
    const lang = visitorLang(visitor);
    const configured = this.autoAnswers();
    const texts = {
      greeting: localized(configured.greeting, lang),
      queued: localized(configured.queued, lang),
      noAgent: localized(configured.noAgent, lang),
    };
    for (const text of openingAnswers(texts, firstConversation, opening)) {
      await this.storeTip(visitor, text, '', true);
    }
  }

  async rate(credential: string, score: number, comment: string | undefined): Promise<void> {
    const visitor = await this.visitors.orFail(credential);
    // A rating's comment reaches agents as surely as a message does.
    this.visitors.refuseBlockedRegion(visitor.region_code);
    const conversation = await this.repo.latest(this.db, visitor.id);
    if (!conversation) throw conflict('nothingToRate');
    const rated = { visitor, conversationId: conversation.id, score, comment: comment ?? '' };
    await this.db.transaction().execute(async (tx) => {
      await this.repo.update(tx, conversation.id, { score, comment: comment ?? '' });
      await this.events.record(tx, 'conversation.rated', rated);
    });
    await this.events.emit('conversation.rated', rated);
  }

  // ---------------------------------------------------------------- visitor presence

  /** A visitor's widget connected: agents hear of it, and the widget learns at once where it stands. */
  async visitorOnline(publicId: string): Promise<void> {
    const visitor = await this.visitors.markOnline(publicId);
    if (!visitor) return;
    if (visitor.state === 'current' && visitor.service_id) {
      const agent = await this.agents.findByUuid(this.db, visitor.service_id);
      if (agent)
        await this.events.emit('visitor.reconnected', {
          visitor,
          agent: { uuid: agent.uuid, nickname: agent.nickname, avatar: agent.avatar },
        });
    } else if (visitor.state === 'wait') {
      await this.routing.queueChanged();
    } else if (visitor.state === 'robot') {
      await this.events.emit('robot.answering', { visitor, robot: this.robot.responder.profile() });
    }
  }

  /** Called after the grace period once a visitor's last socket has closed. */
  async visitorLeft(publicId: string): Promise<void> {
    const visitor = await this.visitors.markOffline(publicId);
    if (!visitor) return;
    // Nobody but the robot was talking with a visitor who left: the conversation is over.
    if (visitor.state === 'wait' || visitor.state === 'robot') {
      await this.close(visitor, null, 'tip.visitorLeft', false);
    } else if (visitor.state === 'current') {
      await this.addTip(visitor, 'tip.visitorLeft', visitorNickname(visitor), false);
    }
  }

  // ---------------------------------------------------------------- agent side

  /**
   * Who reads a visitor's messages and pages (one rule for both: the pages a visitor went through tell as
   * much about a past conversation as its messages): supervisors always; while a conversation is open its
   * agent and monitors; while it waits any agent (who may take it). Once no conversation is open, a
   * visitor who never wrote is open to every agent, who may greet it; one who did is read by holders of
   * seeHistorical and the agents who took part in one of its conversations (or were mentioned in one of
   * its notes), online now or not.
   */
  private async canRead(auth: AuthContext, visitor: VisitorRow): Promise<boolean> {
    if (isSupervisor(auth)) return true;
    if (visitor.state === 'current' && visitor.service_id)
      return visitor.service_id === auth.uuid || (await this.repo.monitorsOf(visitor.id)).includes(auth.uuid);
    if (visitor.state !== 'end') return true;
    if (visitor.last_seq === 0 || auth.permissions.includes('seePermissions:seeHistorical')) return true;
    return this.repo.tookPart(this.db, visitor.id, auth.uuid);
  }

  async readable(auth: AuthContext, publicId: string): Promise<VisitorRow> {
    const visitor = await this.visitorRepo.findByPublicId(this.db, publicId);
    if (!visitor) throw notFound();
    if (!(await this.canRead(auth, visitor))) throw forbidden();
    return visitor;
  }

  async userList(auth: AuthContext): Promise<{ list: Visitor[] }> {
    const visible = await this.visitorRepo.listActive(isSupervisor(auth) ? {} : { agent: auth.uuid });
    const last = await this.repo.lastMessages(visible.map((row) => row.id));
    return { list: visible.map((row) => toVisitor(row, last.get(row.id))) };
  }

  async agentMessages(
    auth: AuthContext,
    publicId: string,
    query: { afterSeq?: number | undefined; beforeSeq?: number | undefined; limit?: number | undefined },
  ) {
    const visitor = await this.readable(auth, publicId);
    const rows = await this.repo.listMessages(visitor.id, {
      afterSeq: query.afterSeq,
      beforeSeq: query.beforeSeq,
      limit: query.limit ?? INITIAL_MESSAGES,
    });
    if (visitor.service_id === auth.uuid && visitor.unread > 0) await this.visitorRepo.update(this.db, visitor.id, { unread: 0 });
    return { list: rows.map((row) => toMessage(row, publicId)) };
  }

  async visits(auth: AuthContext, publicId: string): Promise<{ list: Visit[] }> {
    const visitor = await this.readable(auth, publicId);
    const rows = await this.visitorRepo.listVisits(visitor.id, 100);
    return { list: rows.map(toVisit) };
  }

  /** Takes a waiting (or browsing) visitor; 409 when another agent already has it. */
  async accept(auth: AuthContext, publicId: string): Promise<Visitor> {
    const me: AgentRef = { uuid: auth.uuid, nickname: auth.nickname, avatar: auth.avatar };
    const result = await this.db.transaction().execute(async (tx) => {
      const visitor = await this.visitorRepo.findByPublicId(tx, publicId);
      if (!visitor) throw notFound();
      if (visitor.state === 'current') {
        if (visitor.service_id === auth.uuid) return { visitor, change: undefined };
        throw conflict('conversationTaken');
      }
      if (visitor.state === 'end') return { visitor: await this.routing.open(tx, visitor, me), change: 'opened' as const };
      if (
        !(await this.visitorRepo.transition(
          tx,
          visitor.id,
          { states: [visitor.state] },
          { state: 'current', service_id: auth.uuid, wait_since: null },
        ))
      ) {
        throw conflict('conversationTaken');
      }
      const conversation = await this.repo.latest(tx, visitor.id);
      if (conversation && !conversation.ended_at) await this.repo.update(tx, conversation.id, { service_id: auth.uuid });
      const taken: VisitorRow = { ...visitor, state: 'current', service_id: auth.uuid, wait_since: null };
      await this.events.record(tx, 'conversation.assigned', { visitor: taken, agent: me, by: 'agent' });
      return { visitor: taken, change: 'assigned' as const };
    });
    if (result.change) {
      if (result.change === 'opened') await this.events.emit('conversation.opened', { visitor: result.visitor, agent: me });
      else await this.events.emit('conversation.assigned', { visitor: result.visitor, agent: me, by: 'agent' });
      await this.addTip(result.visitor, 'tip.accepted', auth.nickname, true);
      await this.routing.queueChanged();
    }
    return this.visitorView(result.visitor.id);
  }

  private async visitorView(id: number): Promise<Visitor> {
    const row = await this.visitorRepo.findById(this.db, id);
    if (!row) throw notFound();
    const last = await this.repo.lastMessages([id]);
    return toVisitor(row, last.get(id));
  }

  /** An agent's message; sending to a waiting visitor takes the conversation first. Idempotent on onlyID. */
  async agentSend(
    auth: AuthContext,
    input: { YQToken: string; msg: string; onlyID: string; type?: MessageType | undefined; assist?: number | undefined },
  ): Promise<Message> {
    const publicId = input.YQToken;
    const sender: Sender = { role: 'service', uuid: auth.uuid };
    let stored: { row: MessageRow; visitor: VisitorRow } | undefined;
    try {
      // Almost every send is to the agent's own conversation: tried at once, with nothing read before.
      stored = await this.storeAgentMessage(auth, input);
      if (!stored) {
        const visitor = await this.visitorRepo.findByPublicId(this.db, publicId);
        if (!visitor) throw notFound();
        // A resend is answered before anything is taken; in the agent's own conversation the unique index answers it.
        const existing = await this.repo.findMessageByOnlyId(this.db, visitor.id, input.onlyID);
        if (existing) return toMessage(resentBy(sender, existing), publicId);
        if (visitor.state === 'current' && visitor.service_id !== auth.uuid) throw new ApiError(403, 'notYourConversation');
        if (visitor.state !== 'current') {
          try {
            await this.accept(auth, publicId);
          } catch (error) {
            // The queue may have handed this visitor to this very agent meanwhile (its console just opened): the send goes on.
            if (!(error instanceof ApiError) || error.status !== 409) throw error;
            stored = await this.storeAgentMessage(auth, input);
            if (!stored) throw error;
          }
        }
        stored ??= await this.storeAgentMessage(auth, input);
        if (!stored) throw new ApiError(403, 'notYourConversation');
      }
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const visitor = await this.visitorRepo.findByPublicId(this.db, publicId);
      const again = visitor && (await this.repo.findMessageByOnlyId(this.db, visitor.id, input.onlyID));
      if (!again) throw error;
      return toMessage(resentBy(sender, again), publicId);
    }
    const message = toMessage(stored.row, publicId);
    await this.events.emit('message.stored', { visitor: stored.visitor, message, visitorSees: true });
    // Once per message: a resend of the same onlyID was answered above, before this.
    if (input.assist !== undefined) this.robot.assistUsed(input.assist);
    return message;
  }

  /**
   * Stores an agent's message in its own conversation, in the next group commit; undefined (nothing
   * written) when the conversation is not, or no longer, this agent's. Not a throw: a unit that throws
   * makes its whole batch run again.
   */
  private storeAgentMessage(
    auth: AuthContext,
    input: { YQToken: string; msg: string; onlyID: string; type?: MessageType | undefined },
  ): Promise<{ row: MessageRow; visitor: VisitorRow } | undefined> {
    return this.commits.run(async (tx) => {
      const current = await this.visitorRepo.takeSeqForAgent(tx, input.YQToken, auth.uuid);
      if (!current) return undefined;
      const seq = current.last_seq;
      const created = isoNow();
      const row = await this.repo.storeMessage(
        tx,
        current.id,
        seq,
        {
          only_id: input.onlyID,
          role: 'service',
          type: input.type ?? 'text',
          msg: input.msg,
          nickname: auth.nickname,
          service_id: auth.uuid,
          created_at: created,
          // Sent by a program with an API token (a site's own bot): the workbench says so.
          ...(auth.apiToken ? { via: auth.apiToken.name } : {}),
        },
        created,
      );
      await this.outboxes.stored(tx, current, row, true);
      return { row, visitor: current };
    });
  }

  /**
   * Hands an open conversation to another agent (with a console open and room below their limit) or,
   * with `queue`, back to the queue. An agent hands on their own conversation; a supervisor any.
   */
  async transfer(auth: AuthContext, publicId: string, serviceID: string): Promise<Visitor> {
    if (serviceID === TRANSFER_TO_QUEUE) return this.requeue(auth, publicId);
    const target = await this.agents.findByUuid(this.db, serviceID);
    if (!target || target.disabled === 1 || target.uuid === auth.uuid) throw new ApiError(400, 'transferTarget');
    const before = await this.visitorRepo.findByPublicId(this.db, publicId);
    if (!before) throw notFound();
    if (before.state !== 'current') throw conflict('conversationClosed');
    if (before.service_id !== auth.uuid && !isSupervisor(auth)) throw new ApiError(403, 'notYourConversation');
    if (!(await this.agents.isPresent(target.uuid, AgentPresenceStore.freshSince()))) throw conflict('agentNotConnected');
    const after: VisitorRow = { ...before, service_id: target.uuid };
    const to: AgentRef = { uuid: target.uuid, nickname: target.nickname, avatar: target.avatar };
    const transferred = { visitor: after, from: before.service_id, to };
    const moved = await this.db.transaction().execute(async (tx) => {
      const load = (await this.visitorRepo.openLoad(tx)).get(target.uuid) ?? 0;
      if (load >= target.max_chats && before.service_id !== target.uuid) throw conflict('agentFull');
      if (
        !(await this.visitorRepo.transition(
          tx,
          before.id,
          { states: ['current'], serviceId: before.service_id },
          { state: 'current', service_id: target.uuid },
        ))
      )
        return false;
      const conversation = await this.repo.latest(tx, before.id);
      if (conversation && !conversation.ended_at) await this.repo.update(tx, conversation.id, { service_id: target.uuid });
      await this.events.record(tx, 'conversation.transferred', transferred);
      return true;
    });
    if (!moved) throw conflict('conversationTaken');
    await this.events.emit('conversation.transferred', transferred);
    await this.addTip(after, 'tip.transferred', target.nickname, true, before);
    return this.visitorView(before.id);
  }

  /** Puts an open conversation back in the queue; the agent who returned it is not handed it again by the queue. */
  private async requeue(auth: AuthContext, publicId: string): Promise<Visitor> {
    const before = await this.visitorRepo.findByPublicId(this.db, publicId);
    if (!before) throw notFound();
    if (before.state !== 'current') throw conflict('conversationClosed');
    if (before.service_id !== auth.uuid && !isSupervisor(auth)) throw new ApiError(403, 'notYourConversation');
    const waiting = { state: 'wait', service_id: null, wait_since: isoNow() };
    const moved = await this.db.transaction().execute(async (tx) => {
      if (!(await this.visitorRepo.transition(tx, before.id, { states: ['current'], serviceId: before.service_id }, waiting))) return false;
      const conversation = await this.repo.latest(tx, before.id);
      if (conversation && !conversation.ended_at) await this.repo.update(tx, conversation.id, { service_id: null });
      return true;
    });
    if (!moved) throw conflict('conversationTaken');
    if (before.service_id) this.routing.returnedBy(before.id, before.service_id);
    const after: VisitorRow = { ...before, ...waiting };
    await this.events.emit('conversation.requeued', { visitor: after, from: before.service_id });
    await this.addTip(after, 'tip.requeued', auth.nickname, true, before);
    await this.routing.queueChanged();
    await this.routing.drain();
    return this.visitorView(before.id);
  }

  async end(auth: AuthContext, publicId: string): Promise<Visitor> {
    const visitor = await this.visitorRepo.findByPublicId(this.db, publicId);
    if (!visitor) throw notFound();
    if (visitor.state === 'end') throw conflict('conversationClosed');
    if (visitor.state === 'current' && visitor.service_id !== auth.uuid && !isSupervisor(auth))
      throw new ApiError(403, 'notYourConversation');
    await this.close(visitor, auth.nickname, 'tip.ended', true);
    return this.visitorView(visitor.id);
  }

  private async close(visitor: VisitorRow, by: string | null, tip: TipKind, tellVisitor: boolean): Promise<void> {
    const rate = tellVisitor && (await this.visitors.widgetSettings(visitor.lang)).rating;
    const ended = { visitor, by, tellVisitor, rate };
    const closed = await this.db.transaction().execute(async (tx) => {
      if (
        !(await this.visitorRepo.transition(
          tx,
          visitor.id,
          { states: [visitor.state] },
          { state: 'end', service_id: visitor.service_id, wait_since: null },
        ))
      )
        return false;
      const conversation = await this.repo.latest(tx, visitor.id);
      const fresh = await this.visitorRepo.findById(tx, visitor.id);
      if (conversation && !conversation.ended_at)
        await this.repo.update(tx, conversation.id, { ended_at: isoNow(), last_seq: fresh?.last_seq ?? visitor.last_seq });
      await this.repo.clearMonitors(tx, visitor.id);
      await this.events.record(tx, 'conversation.ended', ended);
      return true;
    });
    if (!closed) return;
    // An ended conversation's events reach every agent, those who followed it included.
    await this.addTip({ ...visitor, state: 'end' }, tip, by ?? visitorNickname(visitor), tellVisitor);
    await this.events.emit('conversation.ended', ended);
    if (visitor.state === 'wait') await this.routing.queueChanged();
    else void this.routing.drain();
  }

  /** A configured text sent on the conversation's behalf (a keyword or timed auto answer): a tip the visitor sees. */
  autoAnswer(visitor: VisitorRow, text: string): Promise<void> {
    return this.storeTip(visitor, text, '', true);
  }

  /** Ends a conversation its visitor left silent too long, the way an agent's end does. */
  closeInactive(visitor: VisitorRow): Promise<void> {
    // A visitor who left and did not come back within the grace: the agent is told that rather than "inactive".
    return this.close(visitor, null, visitor.online === 0 ? 'tip.closedVisitorLeft' : 'tip.closedIdle', true);
  }

  /** A channel's notice in the visitor's conversation (a WeChat message it cannot show, a rating asked as text). */
  notice(visitor: VisitorRow, kind: TipKind, name: string, visitorSees: boolean): Promise<void> {
    return this.storeTip(visitor, kind, name, visitorSees);
  }

  /** Stores a system tip in the conversation; its agents see it (and the visitor, if asked). */
  private addTip(visitor: VisitorRow, kind: TipKind, name: string, visitorSees: boolean, before?: VisitorRow): Promise<void> {
    return this.storeTip(visitor, kind, name, visitorSees, before);
  }

  /** A tip's msg is a TipKind each client words in its own language, or a configured text shown as it is. */
  private async storeTip(visitor: VisitorRow, msg: string, name: string, visitorSees: boolean, before?: VisitorRow): Promise<void> {
    const row = await this.db.transaction().execute(async (tx) => {
      const seq = await this.visitorRepo.takeSeq(tx, visitor.id, null);
      const stored = await this.repo.insertMessageAt(tx, visitor.id, seq, {
        only_id: `tip-${randomBytes(8).toString('hex')}`,
        role: 'tip',
        type: 'text',
        msg,
        nickname: name,
        service_id: visitor.service_id,
        created_at: isoNow(),
      });
      await this.outboxes.stored(tx, visitor, stored, visitorSees);
      return stored;
    });
    const message = toMessage(row, visitor.public_id);
    await this.events.emit('message.stored', { visitor, message, visitorSees, ...(before ? { alsoAgentsOf: before } : {}) });
  }

  async withdraw(auth: AuthContext, publicId: string, onlyID: string): Promise<void> {
    const visitor = await this.visitorRepo.findByPublicId(this.db, publicId);
    if (!visitor) throw notFound();
    const message = await this.repo.findMessageByOnlyId(this.db, visitor.id, onlyID);
    if (!message) throw notFound('messageMissing');
    if (message.role !== 'service' || message.service_id !== auth.uuid) throw new ApiError(403, 'withdrawNotSender');
    if (message.withdrawn) return;
    if (Date.now() - Date.parse(message.created_at) > WITHDRAW_WINDOW_MS) throw conflict('withdrawTooLate');
    // A message that went to WeChat (or is on its way) cannot be taken back there (§11).
    if (message.delivery) throw conflict('withdrawWeChat');
    await this.repo.markWithdrawn(this.db, message.id);
    await this.events.emit('message.withdrawn', { visitor, onlyID });
  }

  async monitor(auth: AuthContext, publicId: string): Promise<Visitor> {
    if (!isSupervisor(auth)) throw new ApiError(403, 'supervisorOnly');
    const visitor = await this.visitorRepo.findByPublicId(this.db, publicId);
    if (!visitor) throw notFound();
    await this.repo.addMonitor(visitor.id, auth.uuid, isoNow());
    return this.visitorView(visitor.id);
  }

  async markRead(auth: AuthContext, publicId: string): Promise<void> {
    const visitor = await this.readable(auth, publicId);
    if (visitor.service_id === auth.uuid) await this.visitorRepo.update(this.db, visitor.id, { unread: 0 });
  }
}
