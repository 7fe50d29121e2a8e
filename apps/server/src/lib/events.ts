import type { AgentState, DeliveryUpdate, LabelRef, Letter, Message, Note, SettingsPage, Visit, Visitor } from '@parley/protocol';
import type { VisitorRow } from '../modules/visitors/repository.js';

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
  'message.stored': { visitor: VisitorRow; message: Message; visitorSees: boolean; alsoAgentsOf?: VisitorRow };
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

/**
 * The in-process domain event hub. `emit` resolves once every subscriber has run; a subscriber that
 * fails is reported to `onError` and the others still run: an action never fails because of a listener.
 */
export class EventHub {
  private readonly handlers: { [K in EventName]?: Handler<K>[] } = {};

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
