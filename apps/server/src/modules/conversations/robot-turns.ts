import { randomBytes } from 'node:crypto';
import type { Message, MessageType } from '@parley/protocol';
import type { DbOrTx } from '../../db/index.js';
import type { MessagePathVisitor, MessageRow, VisitorRow } from '../../db/schema.js';
import { isoNow } from '../../lib/time.js';
import type { AgentRef, EventHub } from '../../realtime/domain-events.js';
import type { RobotResponder } from '../robots/responder.js';
import type { VisitorRepository } from '../visitors/repository.js';
import { toMessage, visitorLang } from '../visitors/views.js';
import type { ConversationOutboxes } from './outboxes.js';
import type { ConversationRepository } from './repository.js';

/** The robot's messages are marked by their onlyID; a miss (the unknown reply) has its own prefix. */
const ROBOT_ID = 'robot-';
const ROBOT_MISS_ID = 'robot-miss-';

/** The smart robot as conversations need it: its answers, and whether people work now (its `offline` mode). */
export interface RobotDesk {
  responder: Pick<RobotResponder, 'settings' | 'profile' | 'wantsPerson' | 'reply'>;
  /** Whether it is within the work hours of the chat-window settings (always, when they are off). */
  workingNow: () => boolean;
  onError: (error: unknown) => void;
  /** An agent's message was made from the suggested answer of this pair (agent assist); counts it, without waiting. */
  assistUsed: (pairId: number) => void;
}

/** A message the robot is about to store. */
interface RobotPart {
  type: MessageType;
  msg: string;
  miss: boolean;
  suggestions?: string[];
}

/**
 * The smart robot's side of a conversation: whether it takes a new one, its welcome, and its answer to
 * each question of a visitor in robot state, stored like any message and told once committed. It hands a
 * visitor to a person (`handOver`, the conversation service's) when asked for one, or after misses in a row.
 */
export class RobotTurns {
  /** Each visitor's robot answers, one after another, so they keep the order of the questions. */
  private readonly turns = new Map<number, Promise<void>>();

  constructor(
    private readonly repo: ConversationRepository,
    private readonly visitorRepo: VisitorRepository,
    private readonly events: EventHub,
    private readonly outboxes: ConversationOutboxes,
    private readonly robot: RobotDesk,
    private readonly handOver: (visitor: Pick<VisitorRow, 'id'>) => Promise<void>,
  ) {}

  /**
   * Whether a new conversation starts with the robot: always in mode `first`; in mode `offline` when no
   * agent can take the visitor now (none available with room, or outside the work hours).
   */
  takes(agent: AgentRef | null): boolean {
    const settings = this.robot.responder.settings();
    if (!settings.enabled) return false;
    return settings.mode === 'first' || agent === null || !this.robot.workingNow();
  }

  /** Stores the robot's welcome, in the transaction that opens the conversation. */
  async storeWelcome(tx: DbOrTx, visitor: VisitorRow): Promise<MessageRow | null> {
    const welcome = this.robot.responder.settings().welcome;
    if (!welcome) return null;
    const seq = await this.visitorRepo.takeSeq(tx, visitor.id, 'smsg');
    const row = await this.repo.storeMessage(tx, visitor.id, seq, this.message({ type: 'text', msg: welcome, miss: false }), null);
    await this.outboxes.stored(tx, visitor, row, true);
    return row;
  }

  /** Agents see the visitor in the robot group; the visitor learns who answers, then reads the welcome. */
  async opened(visitor: VisitorRow, welcome: MessageRow | null): Promise<void> {
    await this.events.emit('conversation.opened', { visitor, agent: null });
    await this.events.emit('robot.answering', { visitor, robot: this.robot.responder.profile() });
    if (welcome) await this.events.emit('message.stored', { visitor, message: toMessage(welcome, visitor.public_id), visitorSees: true });
  }

  /** Answers the visitor's question after its earlier ones, without holding up the visitor's send. */
  answer(visitor: MessagePathVisitor, question: Message): void {
    const previous = this.turns.get(visitor.id) ?? Promise.resolve();
    const turn = previous.then(() => this.turn(visitor, question)).catch(this.robot.onError);
    this.turns.set(visitor.id, turn);
    void turn.finally(() => {
      if (this.turns.get(visitor.id) === turn) this.turns.delete(visitor.id);
    });
  }

  private message(part: RobotPart) {
    return {
      only_id: `${part.miss ? ROBOT_MISS_ID : ROBOT_ID}${randomBytes(8).toString('hex')}`,
      role: 'robot',
      type: part.type,
      msg: part.msg,
      nickname: this.robot.responder.profile().name,
      service_id: null,
      created_at: isoNow(),
      suggestions: (part.suggestions ?? []).join('\n'),
    };
  }

  /** Answers one question of a visitor in robot state, or hands the visitor to a person. */
  private async turn(visitor: MessagePathVisitor, question: Message): Promise<void> {
    const settings = this.robot.responder.settings();
    if (!settings.enabled || (question.type === 'text' && this.robot.responder.wantsPerson(question.msg))) {
      await this.handOver(visitor);
      return;
    }
    const lang = visitorLang(visitor);
    // A picture or a file is not a question the knowledge base can answer.
    const reply = await this.robot.responder.reply(question.type === 'text' ? question.msg : '', lang);
    const parts: RobotPart[] =
      reply.kind === 'answer'
        ? [
            { type: 'text', msg: reply.text, miss: false },
            ...(reply.image ? [{ type: 'image' as const, msg: reply.image, miss: false }] : []),
          ]
        : [{ type: 'text', msg: reply.text, miss: true, suggestions: reply.suggestions }];
    if (!(await this.store(visitor, parts))) return;
    if (reply.kind === 'unknown' && settings.handoverAfterUnknown > 0) {
      if ((await this.missesInARow(visitor.id)) >= settings.handoverAfterUnknown) await this.handOver(visitor);
    }
  }

  /** Stores the robot's messages, unless a person took the visitor meanwhile; whether it did. */
  private async store(visitor: MessagePathVisitor, parts: RobotPart[]): Promise<boolean> {
    const rows = await this.repo.db.transaction().execute(async (tx) => {
      const current = await this.visitorRepo.findById(tx, visitor.id);
      if (current?.state !== 'robot') return null;
      const stored: MessageRow[] = [];
      for (const part of parts) {
        const seq = await this.visitorRepo.takeSeq(tx, visitor.id, 'smsg');
        const row = await this.repo.storeMessage(tx, visitor.id, seq, this.message(part), null);
        await this.outboxes.stored(tx, visitor, row, true);
        stored.push(row);
      }
      return stored;
    });
    if (!rows) return false;
    for (const row of rows) {
      await this.events.emit('message.stored', { visitor, message: toMessage(row, visitor.public_id), visitorSees: true });
    }
    return true;
  }

  /** How many of the robot's last answers, in a row, were the unknown reply. */
  private async missesInARow(visitorId: number): Promise<number> {
    const recent = await this.repo.newestFirst(this.repo.db, visitorId, 60);
    let misses = 0;
    for (const row of recent) {
      if (row.role === 'user' || row.role === 'tip') continue;
      if (row.role === 'robot' && row.only_id.startsWith(ROBOT_MISS_ID)) misses += 1;
      else break;
    }
    return misses;
  }
}
