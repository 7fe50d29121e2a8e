import type { AgentState, DeliveryUpdate, LabelRef, Letter, Message, Note, SettingsPage, Visit, Visitor } from '@parley/protocol';
import type { DbOrTx } from '../db/index.js';
import type { MessagePathVisitor, VisitorRow } from '../db/schema.js';

/** An agent as a visitor is told of it. */
export interface AgentRef {
  uuid: string;
  nickname: string;
  avatar: string;
}

/**
 * What happened, told after it was committed. `visitor` is the visitor's row as the action left it, unless
 * said otherwise. Subscribers (the socket notifier, the mailer, later statistics and robots) run in the
 * order they subscribed, one after another, so what one of them sends keeps the order of the events.
 */
export interface DomainEvents {
  'conversation.opened': { visitor: VisitorRow; agent: AgentRef | null };
  /** A waiting visitor was given to an agent: taken by the agent, or handed out from the queue. */
  'conversation.assigned': { visitor: VisitorRow; agent: AgentRef; by: 'agent' | 'queue' };
  /** The robot passed its visitor to a person: to `agent`, or to the queue when null. */
  'conversation.handedOver': { visitor: VisitorRow; agent: AgentRef | null };
  'conversation.transferred': { visitor: VisitorRow; from: string | null; to: AgentRef };
  /** An agent put the conversation back in the queue. */
  'conversation.requeued': { visitor: VisitorRow; from: string | null };
  /** `visitor` is the row before it ended (its state then); `rate` asks the widget for a rating. */
  'conversation.ended': { visitor: VisitorRow; by: string | null; tellVisitor: boolean; rate: boolean };
  'conversation.rated': { visitor: VisitorRow; conversationId: number; score: number; comment: string };
  /** The labels of a conversation were replaced (`labels`: all it carries now); `by` is the agent's uuid. */
  'conversation.labelled': { visitor: VisitorRow; conversationId: number; labels: LabelRef[]; by: string };
  /**
   * A message was stored. Tips reach the agents of `alsoAgentsOf` too (the visitor as it was before a
   * transfer), and the visitor when `visitorSees`; agents' messages always reach the visitor.
   */
  'message.stored': { visitor: MessagePathVisitor; message: Message; visitorSees: boolean; alsoAgentsOf?: VisitorRow };
  'message.withdrawn': { visitor: VisitorRow; onlyID: string };
  /** An internal note was added; it reaches agents only (the note's `mentions` are told apart). Never the visitor. */
  'note.created': { visitor: VisitorRow; note: Note; visitorName: string };
  /** A message to a WeChat visitor reached WeChat, or failed to (§11). */
  'message.delivery': { visitor: VisitorRow; update: DeliveryUpdate };
  /** Who waits, oldest first (public ids), after the queue changed. */
  'queue.changed': { queue: string[] };
  /** A visitor was seen for the first time (its row was just made). */
  'visitor.created': { visitor: VisitorRow };
  /** A browser was tied to the site's user (CONTRACT §13); `mergedFrom` names the anonymous visitor whose history moved in. */
  'visitor.identified': { visitor: VisitorRow; mergedFrom: string | null };
  /** An anonymous visitor's history moved into the user's visitor (`from` now ended, `into` as it is now). */
  'visitor.merged': { from: VisitorRow; into: VisitorRow };
  'visitor.online': { visitor: VisitorRow; view: Visitor };
  'visitor.offline': { visitor: VisitorRow };
  /** A visitor's widget (re)connected while an agent has its conversation. */
  'visitor.reconnected': { visitor: VisitorRow; agent: AgentRef };
  'visitor.typing': { visitor: VisitorRow; text: string };
  'visit.recorded': { visitor: VisitorRow; visit: Visit };
  'letter.created': { letter: Letter };
  /** An agent's chosen availability, or whether a console of theirs is open anywhere, changed. */
  'agent.stateChanged': { uuid: string; state: AgentState; online: boolean };
  /** A chat-window settings page was saved. */
  'settings.changed': { page: SettingsPage };
  /** The robot answers this visitor (its conversation opened with the robot, or its widget reconnected). */
  'robot.answering': { visitor: VisitorRow; robot: { name: string; avatar: string } };
  /**
   * The robot's question-answer pairs, or its settings, were changed. `ids` names the pairs changed
   * (created, edited or deleted) when they are few; without it, every pair may have changed.
   */
  'robots.changed': { what: 'pairs' | 'high'; ids?: number[] };
}

export type EventName = keyof DomainEvents;
type Handler<K extends EventName> = (payload: DomainEvents[K]) => void | Promise<void>;
type Recorder<K extends EventName> = (tx: DbOrTx, payload: DomainEvents[K]) => Promise<void>;

/**
 * The in-process domain event hub (what passes between processes is the bus's BusEvent instead). `emit`
 * resolves once every subscriber has run; a subscriber that fails is reported to `onError` and the others
 * still run: an action never fails because of a listener.
 *
 * A change whose event an outbox keeps (webhook deliveries) also calls `record` inside its transaction:
 * the recorders write their rows there, so the rows commit with the change or not at all — a crash can
 * neither lose an event that happened nor leave one for a change that rolled back. `emit` follows the
 * commit as for every event, and wakes the outbox's worker.
 */
export class EventHub {
  private readonly handlers: { [K in EventName]?: Handler<K>[] } = {};
  private readonly recorders: { [K in EventName]?: Recorder<K>[] } = {};

  constructor(private readonly onError: (error: unknown, event: EventName) => void) {}

  on<K extends EventName>(event: K, handler: Handler<K>): () => void {
    this.handlers[event] ??= [];
    const list: Handler<K>[] = this.handlers[event];
    list.push(handler);
    return () => {
      const at = list.indexOf(handler);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /** Writes that must commit with the change that makes `event`: run inside its transaction, in order. */
  recordWith<K extends EventName>(event: K, recorder: Recorder<K>): void {
    this.recorders[event] ??= [];
    const list: Recorder<K>[] = this.recorders[event];
    list.push(recorder);
  }

  /** Inside the change's transaction: the recorders' writes. One that fails rolls the change back. */
  async record<K extends EventName>(tx: DbOrTx, event: K, payload: DomainEvents[K]): Promise<void> {
    const list: Recorder<K>[] = this.recorders[event] ?? [];
    for (const recorder of list) await recorder(tx, payload);
  }

  async emit<K extends EventName>(event: K, payload: DomainEvents[K]): Promise<void> {
    const list: Handler<K>[] = this.handlers[event] ?? [];
    for (const handler of [...list]) {
      try {
        await handler(payload);
      } catch (error) {
        this.onError(error, event);
      }
    }
  }
}
