import { randomBytes } from 'node:crypto';
import {
  ADMIN_ROLE,
  type AgentIndex,
  type AgentPeer,
  can,
  type Message,
  type MessageType,
  SocketCode,
  type TipKind,
  type Visit,
  type Visitor,
  type VisitorInit,
  type VisitorState,
  type WidgetSettings,
} from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { isUniqueViolation } from '../../db/errors.js';
import type { DbOrTx } from '../../db/index.js';
import { ApiError, conflict, forbidden, notFound } from '../../lib/errors.js';
import { isoNow } from '../../lib/time.js';
import { hashToken, newVisitorCredential, newVisitorPublicId } from '../../lib/tokens.js';
import { AgentPresenceStore } from '../../realtime/presence.js';
import type { AuthContext } from '../auth/service.js';
import type { LinkRouting } from '../links/service.js';
import { parseSource, parseUserAgent, regionOf } from './client-info.js';
import type { Notifier } from './notifier.js';
import type { ChatRepository, MessageRow, VisitorRow } from './repository.js';
import { defaultWidgetSettings } from './settings.js';
import { toMessage, toVisitor, visitorNickname } from './views.js';

export const WITHDRAW_WINDOW_MS = 2 * 60 * 1000;
const INITIAL_MESSAGES = 50;
const CATCH_UP_LIMIT = 200;

/** Which agents have a socket open, so that conversations only go to someone who will see them. */
export interface AgentPresence {
  isConnected(uuid: string): boolean;
}

interface Assigned {
  uuid: string;
  nickname: string;
  avatar: string;
}

const unknownVisitor = () => new ApiError(401, 'visitorUnknown');

/** Who sent a message, for idempotency: a resend returns the stored message to its own sender only. */
type Sender = { role: 'user' } | { role: 'service'; uuid: string };

/** The stored message of a resent onlyID; 409 when someone else used that onlyID for this visitor. */
function resentBy(sender: Sender, row: MessageRow): MessageRow {
  const own = sender.role === 'user' ? row.role === 'user' : row.role === 'service' && row.service_id === sender.uuid;
  if (!own) throw conflict('onlyIdTaken');
  return row;
}

/** A supervisor may read and monitor any conversation. */
export function isSupervisor(auth: AuthContext): boolean {
  return can(auth, { role: [ADMIN_ROLE] }) || auth.permissions.includes('setPermissions:service');
}

/**
 * Conversations: visitors, their messages, and who answers them. Every message is stored (with its
 * seq, in one transaction) before anyone is told; pushes go out through the Notifier afterwards.
 *
 * A visitor has two names: its `credential` (the YQToken init hands to the widget; only its hash is
 * stored) opens the visitor API, and its `publicId` (`YQToken` in everything agents see) names it to
 * agents and grants nothing on the visitor API.
 */
export class ChatService {
  private draining: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: ChatRepository,
    private readonly notify: Notifier,
    private readonly log: FastifyBaseLogger,
    private readonly links: LinkRouting,
  ) {}

  private get db() {
    return this.repo.db;
  }

  // ---------------------------------------------------------------- visitor side

  async init(
    input: {
      YQToken?: string | undefined;
      url: string;
      title?: string | undefined;
      referrer?: string | undefined;
      lang?: string | undefined;
      channel?: string | undefined;
      link?: string | undefined;
    },
    client: { ip: string; userAgent: string },
  ): Promise<VisitorInit> {
    const now = isoNow();
    let credential = input.YQToken ?? '';
    let visitor = credential ? await this.visitorByCredential(this.db, credential) : undefined;
    if (visitor) {
      await this.repo.updateVisitor(this.db, visitor.id, { last_seen_at: now, lang: input.lang ?? visitor.lang });
    } else {
      // A credential the server has never handed out is not adopted: visitors get fresh random ones only.
      const agent = parseUserAgent(client.userAgent);
      const source = parseSource(input.referrer ?? '', input.url);
      credential = newVisitorCredential();
      visitor = await this.repo.insertVisitor(this.db, {
        token_hash: hashToken(credential),
        public_id: newVisitorPublicId(),
        name: '',
        phone: '',
        email: '',
        channel: input.channel ?? 'web',
        state: 'end',
        service_id: null,
        online: 0,
        unread: 0,
        umsg: 0,
        smsg: 0,
        last_seq: 0,
        ip: client.ip,
        region: regionOf(client.ip),
        user_agent: client.userAgent.slice(0, 512),
        platform: agent.platform,
        browser: agent.browser,
        device: agent.device,
        referrer: (input.referrer ?? '').slice(0, 2048),
        engine: source.engine,
        keyword: source.keyword,
        first_url: input.url,
        lang: input.lang ?? '',
        wait_since: null,
        created_at: now,
        last_seen_at: now,
        // Links hook: a new visitor arriving through a known chat link is tagged with it (unknown keys: untagged).
        link_id: await this.links.linkIdOf(this.db, input.link),
      });
    }
    await this.recordVisit(visitor, input.url, input.title ?? '', now);
    const messages = await this.repo.listMessages(visitor.id, { limit: INITIAL_MESSAGES });
    const publicId = visitor.public_id;
    return {
      YQToken: credential,
      id: publicId,
      state: visitor.state as VisitorState,
      serviceID: visitor.service_id,
      settings: await this.widgetSettings(input.lang),
      messages: messages.map((row) => toMessage(row, publicId)),
    };
  }

  async widgetSettings(lang: string | undefined): Promise<WidgetSettings> {
    return { ...defaultWidgetSettings(lang?.toLowerCase().startsWith('en') ? 'en' : 'zh'), online: await this.anyAgentAvailable() };
  }

  private async anyAgentAvailable(): Promise<boolean> {
    return (await this.repo.availableAgents(this.db, AgentPresenceStore.freshSince())).length > 0;
  }

  async visit(credential: string, url: string, title: string): Promise<void> {
    const visitor = await this.visitorOrFail(credential);
    await this.recordVisit(visitor, url, title, isoNow());
  }

  private async recordVisit(visitor: VisitorRow, url: string, title: string, at: string): Promise<void> {
    await this.repo.insertVisit(visitor.id, url, title.slice(0, 512), at);
    await this.notify.toAgentsOf(visitor, {
      code: SocketCode.visit,
      data: { YQToken: visitor.public_id, URL: url, title, created_at: at },
    });
  }

  private visitorByCredential(db: DbOrTx, credential: string): Promise<VisitorRow | undefined> {
    return this.repo.findVisitorByTokenHash(db, hashToken(credential));
  }

  /** The visitor API's lookup: 401 unless the credential is one init handed out. */
  private async visitorOrFail(credential: string, db: DbOrTx = this.db): Promise<VisitorRow> {
    const visitor = await this.visitorByCredential(db, credential);
    if (!visitor) throw unknownVisitor();
    return visitor;
  }

  async visitorMessages(credential: string, afterSeq: number | undefined): Promise<{ list: Message[] }> {
    const visitor = await this.visitorOrFail(credential);
    const rows = await this.repo.listMessages(visitor.id, { afterSeq, limit: afterSeq === undefined ? INITIAL_MESSAGES : CATCH_UP_LIMIT });
    return { list: rows.map((row) => toMessage(row, visitor.public_id)) };
  }

  /** A visitor's message; opens a conversation (agent or queue) when none is open. Idempotent on onlyID. */
  async visitorMessage(credential: string, input: { msg: string; onlyID: string; type?: MessageType | undefined }): Promise<Message> {
    let outcome: { row: MessageRow; visitor: VisitorRow; assigned: Assigned | null | undefined };
    try {
      outcome = await this.db.transaction().execute(async (tx) => {
        // Most messages join an open conversation: one statement takes the seq and reads the visitor.
        const tokenHash = hashToken(credential);
        let visitor = await this.repo.bumpVisitorInConversation(tx, tokenHash);
        let assigned: Assigned | null | undefined;
        if (!visitor) {
          const closed = await this.visitorOrFail(credential, tx);
          assigned = (await this.pickAgent(tx, closed.id)) ?? null;
          await this.openConversation(tx, closed, assigned);
          visitor = await this.repo.bumpVisitorInConversation(tx, tokenHash);
          if (!visitor) throw new Error('a conversation just opened is not open');
        }
        // A resent onlyID fails the unique index here and rolls all of this back (see the catch).
        const row = await this.repo.insertMessageAt(tx, visitor.id, visitor.last_seq, {
          only_id: input.onlyID,
          role: 'user',
          type: input.type ?? 'text',
          msg: input.msg,
          nickname: visitorNickname(visitor),
          service_id: visitor.service_id,
          created_at: isoNow(),
        });
        return { row, visitor, assigned };
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // A resend of a stored message, or two copies of one send that raced: the stored one answers.
      const visitor = await this.visitorOrFail(credential);
      const existing = await this.repo.findMessageByOnlyId(this.db, visitor.id, input.onlyID);
      if (!existing) throw error;
      return toMessage(resentBy({ role: 'user' }, existing), visitor.public_id);
    }
    const message = toMessage(outcome.row, outcome.visitor.public_id);
    if (outcome.assigned !== undefined) await this.announceRouting(outcome.visitor, outcome.assigned);
    await this.notify.toAgentsOf(outcome.visitor, {
      code: SocketCode.visitorMessage,
      recipient: outcome.visitor.service_id ?? undefined,
      data: message,
    });
    return message;
  }

  private async openConversation(tx: DbOrTx, visitor: VisitorRow, agent: Assigned | null): Promise<VisitorRow> {
    const now = isoNow();
    const to = agent
      ? { state: 'current', service_id: agent.uuid, wait_since: null }
      : { state: 'wait', service_id: null, wait_since: now };
    await this.repo.transition(tx, visitor.id, { states: ['end'] }, to);
    await this.repo.openConversation(tx, visitor.id, agent?.uuid ?? null, visitor.last_seq + 1, now);
    return { ...visitor, ...to };
  }

  /** Tells everyone concerned where a newly opened conversation went. */
  private async announceRouting(visitor: VisitorRow, agent: Assigned | null): Promise<void> {
    await this.notify.toAgents('all', {
      code: SocketCode.visitorState,
      data: { YQToken: visitor.public_id, state: visitor.state, serviceID: visitor.service_id },
    });
    if (agent)
      await this.notify.toVisitor(visitor.public_id, {
        code: SocketCode.accepted,
        data: { serviceID: agent.uuid, nickname: agent.nickname, avatar: agent.avatar },
      });
    else await this.pushQueuePositions();
  }

  /**
   * The agent the visitor's chat link pins it to, when that agent is available with room; else the
   * online, connected agent with the fewest open conversations below its limit.
   */
  private async pickAgent(tx: DbOrTx, visitorId: number): Promise<Assigned | undefined> {
    const agents = await this.repo.availableAgents(tx, AgentPresenceStore.freshSince());
    if (agents.length === 0) return undefined;
    const load = await this.repo.openLoad(tx);
    // Links hook: the pinned agent goes first; unavailable or full, the visitor is routed as any other.
    const pinned = await this.links.pinnedAgentOf(tx, visitorId);
    let best: (typeof agents)[number] | undefined;
    let bestLoad = Number.POSITIVE_INFINITY;
    for (const agent of agents) {
      const open = load.get(agent.uuid) ?? 0;
      if (open < agent.max_chats && agent.uuid === pinned) return { uuid: agent.uuid, nickname: agent.nickname, avatar: agent.avatar };
      if (open < agent.max_chats && open < bestLoad) {
        best = agent;
        bestLoad = open;
      }
    }
    return best && { uuid: best.uuid, nickname: best.nickname, avatar: best.avatar };
  }

  async pushQueuePositions(): Promise<void> {
    const queue = await this.repo.waitingVisitors(this.db);
    for (const [index, visitor] of queue.entries()) {
      await this.notify.toVisitor(visitor.public_id, { code: SocketCode.waiting, data: { position: index + 1 } });
    }
  }

  /** Gives waiting visitors, oldest first, to agents with room; one drain at a time in this process. */
  drain(): Promise<void> {
    this.draining = this.draining.then(
      () => this.drainQueue(),
      () => this.drainQueue(),
    );
    return this.draining.catch((error: unknown) => this.log.error({ err: error }, 'queue drain failed'));
  }

  private async drainQueue(): Promise<void> {
    let changed = false;
    for (;;) {
      const handed = await this.db.transaction().execute(async (tx) => {
        const [next] = await this.repo.waitingVisitors(tx);
        if (!next) return undefined;
        const agent = await this.pickAgent(tx, next.id);
        if (!agent) return undefined;
        if (
          !(await this.repo.transition(tx, next.id, { states: ['wait'] }, { state: 'current', service_id: agent.uuid, wait_since: null }))
        )
          return null;
        const conversation = await this.repo.latestConversation(tx, next.id);
        if (conversation && !conversation.ended_at) await this.repo.updateConversation(tx, conversation.id, { service_id: agent.uuid });
        const visitor = await this.repo.findVisitorById(tx, next.id);
        return visitor && { visitor, agent };
      });
      if (handed === undefined) break;
      if (handed === null) continue;
      changed = true;
      await this.announceRouting(handed.visitor, handed.agent);
    }
    if (changed) await this.pushQueuePositions();
  }

  async typing(publicId: string, text: string): Promise<void> {
    const visitor = await this.repo.findVisitorByPublicId(this.db, publicId);
    if (visitor) await this.notify.toAgentsOf(visitor, { code: SocketCode.typing, data: { YQToken: publicId, text } });
  }

  async letter(
    input: { YQToken?: string | undefined; name: string; phone?: string | undefined; email?: string | undefined; content: string },
    ip: string,
  ) {
    const visitor = input.YQToken ? await this.visitorByCredential(this.db, input.YQToken) : undefined;
    const id = await this.repo.insertLetter({
      visitor_id: visitor?.id ?? null,
      name: input.name,
      phone: input.phone ?? '',
      email: input.email ?? '',
      content: input.content,
      ip,
      created_at: isoNow(),
    });
    if (visitor && !visitor.name)
      await this.repo.updateVisitor(this.db, visitor.id, { name: input.name, phone: input.phone ?? '', email: input.email ?? '' });
    return { id };
  }

  async rate(credential: string, score: number, comment: string | undefined): Promise<void> {
    const visitor = await this.visitorOrFail(credential);
    const conversation = await this.repo.latestConversation(this.db, visitor.id);
    if (!conversation) throw conflict('nothingToRate');
    await this.repo.updateConversation(this.db, conversation.id, { score, comment: comment ?? '' });
  }

  // ---------------------------------------------------------------- presence

  /** The public id of the visitor with this credential, which its sockets are kept under. */
  async visitorPublicId(credential: string): Promise<string | undefined> {
    return (await this.visitorByCredential(this.db, credential))?.public_id;
  }

  async visitorOnline(publicId: string): Promise<void> {
    const visitor = await this.repo.findVisitorByPublicId(this.db, publicId);
    if (!visitor) return;
    await this.repo.updateVisitor(this.db, visitor.id, { online: 1, last_seen_at: isoNow() });
    if (visitor.online === 0) {
      const last = await this.repo.lastMessages([visitor.id]);
      await this.notify.toAgentsOf(visitor, {
        code: SocketCode.visitorOnline,
        data: toVisitor({ ...visitor, online: 1 }, last.get(visitor.id)),
      });
    }
    await this.tellVisitorWhereItStands(visitor);
  }

  /** A (re)connected widget learns its state at once: who answers, or its place in the queue. */
  private async tellVisitorWhereItStands(visitor: VisitorRow): Promise<void> {
    if (visitor.state === 'current' && visitor.service_id) {
      const agent = await this.repo.findAgentByUuid(this.db, visitor.service_id);
      if (agent)
        await this.notify.toVisitor(visitor.public_id, {
          code: SocketCode.accepted,
          data: { serviceID: agent.uuid, nickname: agent.nickname, avatar: agent.avatar },
        });
    } else if (visitor.state === 'wait') {
      await this.pushQueuePositions();
    }
  }

  /** Called after the grace period once a visitor's last socket has closed. */
  async visitorOffline(publicId: string): Promise<void> {
    const visitor = await this.repo.findVisitorByPublicId(this.db, publicId);
    if (!visitor || visitor.online === 0) return;
    await this.repo.updateVisitor(this.db, visitor.id, { online: 0, last_seen_at: isoNow() });
    await this.notify.toAgentsOf(visitor, { code: SocketCode.visitorOffline, data: { YQToken: publicId } });
    if (visitor.state === 'wait') {
      await this.closeConversation(visitor, null, 'tip.visitorLeft', false);
    } else if (visitor.state === 'current') {
      await this.addTip(visitor, 'tip.visitorLeft', visitorNickname(visitor), false);
    }
  }

  // ---------------------------------------------------------------- agent side

  /**
   * Who reads a visitor's messages and pages: supervisors always; while a conversation is open its agent
   * and monitors; while it waits any agent (who may take it). Once no conversation is open, its past
   * conversations are read by holders of seeHistorical and the agents who took part in one of them; the
   * pages of a visitor browsing now stay open to every agent, who may greet it from them.
   */
  private async canRead(auth: AuthContext, visitor: VisitorRow, what: 'messages' | 'visits'): Promise<boolean> {
    if (isSupervisor(auth)) return true;
    if (visitor.state === 'current' && visitor.service_id)
      return visitor.service_id === auth.uuid || (await this.repo.monitorsOf(visitor.id)).includes(auth.uuid);
    if (visitor.state !== 'end') return true;
    if (what === 'visits' && visitor.online === 1) return true;
    if (visitor.last_seq === 0 || auth.permissions.includes('seePermissions:seeHistorical')) return true;
    return this.repo.tookPart(this.db, visitor.id, auth.uuid);
  }

  private async readable(auth: AuthContext, publicId: string, what: 'messages' | 'visits'): Promise<VisitorRow> {
    const visitor = await this.repo.findVisitorByPublicId(this.db, publicId);
    if (!visitor) throw notFound();
    if (!(await this.canRead(auth, visitor, what))) throw forbidden();
    return visitor;
  }

  async userList(auth: AuthContext): Promise<{ list: Visitor[] }> {
    const rows = await this.repo.listActiveVisitors();
    const supervisor = isSupervisor(auth);
    const visible = rows.filter((row) => supervisor || row.state !== 'current' || row.service_id === auth.uuid);
    const last = await this.repo.lastMessages(visible.map((row) => row.id));
    return { list: visible.map((row) => toVisitor(row, last.get(row.id))) };
  }

  async agentMessages(
    auth: AuthContext,
    publicId: string,
    query: { afterSeq?: number | undefined; beforeSeq?: number | undefined; limit?: number | undefined },
  ) {
    const visitor = await this.readable(auth, publicId, 'messages');
    const rows = await this.repo.listMessages(visitor.id, {
      afterSeq: query.afterSeq,
      beforeSeq: query.beforeSeq,
      limit: query.limit ?? INITIAL_MESSAGES,
    });
    if (visitor.service_id === auth.uuid && visitor.unread > 0) await this.repo.updateVisitor(this.db, visitor.id, { unread: 0 });
    return { list: rows.map((row) => toMessage(row, publicId)) };
  }

  async visits(auth: AuthContext, publicId: string): Promise<{ list: Visit[] }> {
    const visitor = await this.readable(auth, publicId, 'visits');
    const rows = await this.repo.listVisits(visitor.id, 100);
    return { list: rows.map((row) => ({ URL: row.url, title: row.title, created_at: row.created_at })) };
  }

  /** Takes a waiting (or browsing) visitor; 409 when another agent already has it. */
  async accept(auth: AuthContext, publicId: string): Promise<Visitor> {
    const result = await this.db.transaction().execute(async (tx) => {
      const visitor = await this.repo.findVisitorByPublicId(tx, publicId);
      if (!visitor) throw notFound();
      if (visitor.state === 'current') {
        if (visitor.service_id === auth.uuid) return { visitor, changed: false };
        throw conflict('conversationTaken');
      }
      const me = { uuid: auth.uuid, nickname: auth.nickname, avatar: auth.avatar };
      if (visitor.state === 'end') return { visitor: await this.openConversation(tx, visitor, me), changed: true };
      if (
        !(await this.repo.transition(
          tx,
          visitor.id,
          { states: [visitor.state] },
          { state: 'current', service_id: auth.uuid, wait_since: null },
        ))
      ) {
        throw conflict('conversationTaken');
      }
      const conversation = await this.repo.latestConversation(tx, visitor.id);
      if (conversation && !conversation.ended_at) await this.repo.updateConversation(tx, conversation.id, { service_id: auth.uuid });
      return { visitor: { ...visitor, state: 'current', service_id: auth.uuid, wait_since: null }, changed: true };
    });
    if (result.changed) {
      await this.announceRouting(result.visitor, { uuid: auth.uuid, nickname: auth.nickname, avatar: auth.avatar });
      await this.addTip(result.visitor, 'tip.accepted', auth.nickname, true);
      await this.pushQueuePositions();
    }
    return this.visitorView(result.visitor.id);
  }

  private async visitorView(id: number): Promise<Visitor> {
    const row = await this.repo.findVisitorById(this.db, id);
    if (!row) throw notFound();
    const last = await this.repo.lastMessages([id]);
    return toVisitor(row, last.get(id));
  }

  /** An agent's message; sending to a waiting visitor takes the conversation first. Idempotent on onlyID. */
  async agentSend(
    auth: AuthContext,
    input: { YQToken: string; msg: string; onlyID: string; type?: MessageType | undefined },
  ): Promise<Message> {
    const publicId = input.YQToken;
    const visitor = await this.repo.findVisitorByPublicId(this.db, publicId);
    if (!visitor) throw notFound();
    const existing = await this.repo.findMessageByOnlyId(this.db, visitor.id, input.onlyID);
    const sender: Sender = { role: 'service', uuid: auth.uuid };
    if (existing) return toMessage(resentBy(sender, existing), publicId);
    if (visitor.state !== 'current' || visitor.service_id !== auth.uuid) {
      if (visitor.state === 'current') throw new ApiError(403, 'notYourConversation');
      await this.accept(auth, publicId);
    }
    let stored: { row: MessageRow; visitor: VisitorRow };
    try {
      stored = await this.db.transaction().execute(async (tx) => {
        const current = await this.repo.findVisitorByPublicId(tx, publicId);
        if (!current) throw notFound();
        if (current.state !== 'current' || current.service_id !== auth.uuid) throw new ApiError(403, 'notYourConversation');
        const row = await this.repo.insertMessage(
          tx,
          current.id,
          {
            only_id: input.onlyID,
            role: 'service',
            type: input.type ?? 'text',
            msg: input.msg,
            nickname: auth.nickname,
            service_id: auth.uuid,
            created_at: isoNow(),
          },
          'smsg',
        );
        await this.repo.updateVisitor(tx, current.id, { unread: 0 });
        return { row, visitor: current };
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const again = await this.repo.findMessageByOnlyId(this.db, visitor.id, input.onlyID);
      if (!again) throw error;
      return toMessage(resentBy(sender, again), publicId);
    }
    const message = toMessage(stored.row, publicId);
    await this.notify.toAgentsOf(stored.visitor, { code: SocketCode.serviceMessage, recipient: auth.uuid, data: message });
    await this.notify.toVisitor(publicId, { code: SocketCode.serviceMessage, data: message });
    return message;
  }

  async transfer(auth: AuthContext, publicId: string, serviceID: string): Promise<Visitor> {
    const target = await this.repo.findAgentByUuid(this.db, serviceID);
    if (!target || target.disabled === 1 || target.uuid === auth.uuid) throw new ApiError(400, 'transferTarget');
    const before = await this.repo.findVisitorByPublicId(this.db, publicId);
    if (!before) throw notFound();
    if (before.state !== 'current') throw conflict('conversationClosed');
    if (before.service_id !== auth.uuid && !isSupervisor(auth)) throw new ApiError(403, 'notYourConversation');
    const previousAgents = await this.notify.agentsOf(before);
    const moved = await this.db.transaction().execute(async (tx) => {
      if (
        !(await this.repo.transition(
          tx,
          before.id,
          { states: ['current'], serviceId: before.service_id },
          { state: 'current', service_id: target.uuid },
        ))
      )
        return false;
      const conversation = await this.repo.latestConversation(tx, before.id);
      if (conversation && !conversation.ended_at) await this.repo.updateConversation(tx, conversation.id, { service_id: target.uuid });
      return true;
    });
    if (!moved) throw conflict('conversationTaken');
    const after: VisitorRow = { ...before, service_id: target.uuid };
    await this.notify.toAgents('all', {
      code: SocketCode.visitorState,
      data: { YQToken: publicId, state: 'current', serviceID: target.uuid },
    });
    await this.notify.toVisitor(publicId, {
      code: SocketCode.accepted,
      data: { serviceID: target.uuid, nickname: target.nickname, avatar: target.avatar },
    });
    await this.addTip(after, 'tip.transferred', target.nickname, true, previousAgents);
    return this.visitorView(before.id);
  }

  async end(auth: AuthContext, publicId: string): Promise<Visitor> {
    const visitor = await this.repo.findVisitorByPublicId(this.db, publicId);
    if (!visitor) throw notFound();
    if (visitor.state === 'end') throw conflict('conversationClosed');
    if (visitor.state === 'current' && visitor.service_id !== auth.uuid && !isSupervisor(auth))
      throw new ApiError(403, 'notYourConversation');
    await this.closeConversation(visitor, auth.nickname, 'tip.ended', true);
    return this.visitorView(visitor.id);
  }

  private async closeConversation(visitor: VisitorRow, by: string | null, tip: TipKind, tellVisitor: boolean): Promise<void> {
    const recipients = await this.notify.agentsOf(visitor);
    const closed = await this.db.transaction().execute(async (tx) => {
      if (
        !(await this.repo.transition(
          tx,
          visitor.id,
          { states: [visitor.state] },
          { state: 'end', service_id: visitor.service_id, wait_since: null },
        ))
      )
        return false;
      const conversation = await this.repo.latestConversation(tx, visitor.id);
      const fresh = await this.repo.findVisitorById(tx, visitor.id);
      if (conversation && !conversation.ended_at)
        await this.repo.updateConversation(tx, conversation.id, { ended_at: isoNow(), last_seq: fresh?.last_seq ?? visitor.last_seq });
      await this.repo.clearMonitors(tx, visitor.id);
      return true;
    });
    if (!closed) return;
    const ended: VisitorRow = { ...visitor, state: 'end' };
    await this.addTip(ended, tip, by ?? visitorNickname(visitor), tellVisitor, recipients);
    await this.notify.toAgents('all', {
      code: SocketCode.visitorState,
      data: { YQToken: visitor.public_id, state: 'end', serviceID: visitor.service_id },
    });
    if (tellVisitor)
      await this.notify.toVisitor(visitor.public_id, {
        code: SocketCode.ended,
        data: { rate: (await this.widgetSettings(visitor.lang)).rating },
      });
    if (visitor.state === 'wait') await this.pushQueuePositions();
    else void this.drain();
  }

  /** Stores a system tip in the conversation and shows it to its agents (and to the visitor if asked). */
  private async addTip(
    visitor: VisitorRow,
    kind: TipKind,
    name: string,
    tellVisitor: boolean,
    extraAgents: string[] | 'all' = [],
  ): Promise<void> {
    const row = await this.db.transaction().execute((tx) =>
      this.repo.insertMessage(
        tx,
        visitor.id,
        {
          only_id: `tip-${randomBytes(8).toString('hex')}`,
          role: 'tip',
          type: 'text',
          msg: kind,
          nickname: name,
          service_id: visitor.service_id,
          created_at: isoNow(),
        },
        null,
      ),
    );
    const message = toMessage(row, visitor.public_id);
    const current = await this.notify.agentsOf(visitor);
    const to = current === 'all' || extraAgents === 'all' ? 'all' : [...new Set([...current, ...extraAgents])];
    await this.notify.toAgents(to, { code: SocketCode.tip, recipient: visitor.service_id ?? undefined, data: message });
    if (tellVisitor) await this.notify.toVisitor(visitor.public_id, { code: SocketCode.tip, data: message });
  }

  async withdraw(auth: AuthContext, publicId: string, onlyID: string): Promise<void> {
    const visitor = await this.repo.findVisitorByPublicId(this.db, publicId);
    if (!visitor) throw notFound();
    const message = await this.repo.findMessageByOnlyId(this.db, visitor.id, onlyID);
    if (!message) throw notFound('messageMissing');
    if (message.role !== 'service' || message.service_id !== auth.uuid) throw new ApiError(403, 'withdrawNotSender');
    if (message.withdrawn) return;
    if (Date.now() - Date.parse(message.created_at) > WITHDRAW_WINDOW_MS) throw conflict('withdrawTooLate');
    await this.repo.markWithdrawn(this.db, message.id);
    await this.notify.toAgentsOf(visitor, { code: SocketCode.withdrawn, data: { YQToken: publicId, onlyID } });
    await this.notify.toVisitor(publicId, { code: SocketCode.withdrawn, data: { onlyID } });
  }

  async monitor(auth: AuthContext, publicId: string): Promise<Visitor> {
    if (!isSupervisor(auth)) throw new ApiError(403, 'supervisorOnly');
    const visitor = await this.repo.findVisitorByPublicId(this.db, publicId);
    if (!visitor) throw notFound();
    await this.repo.addMonitor(visitor.id, auth.uuid, isoNow());
    return this.visitorView(visitor.id);
  }

  async markRead(auth: AuthContext, publicId: string): Promise<void> {
    const visitor = await this.readable(auth, publicId, 'messages');
    if (visitor.service_id === auth.uuid) await this.repo.updateVisitor(this.db, visitor.id, { unread: 0 });
  }

  async agentIndex(auth: AuthContext): Promise<AgentIndex> {
    const agent = await this.repo.findAgentByUuid(this.db, auth.uuid);
    return {
      info: { uuid: auth.uuid, nickname: auth.nickname, avatar: auth.avatar, state: agent?.state === '1' ? '1' : '0' },
      userVoice: '/sounds/visitor.wav',
      msgVoice: '/sounds/message.wav',
    };
  }

  /** Online ('0') or hidden ('1'); going online hands out waiting visitors. */
  async setAgentState(auth: AuthContext, state: '0' | '1'): Promise<{ state: '0' | '1' }> {
    await this.repo.updateAgentState(auth.uuid, state);
    await this.notify.toAgents('all', { code: SocketCode.agentState, data: { uuid: auth.uuid, state } });
    if (state === '0') await this.drain();
    return { state };
  }

  async peers(): Promise<{ list: AgentPeer[] }> {
    const rows = await this.repo.listPeers(AgentPresenceStore.freshSince());
    return {
      list: rows.map((row) => ({
        uuid: row.uuid,
        nickname: row.nickname,
        avatar: row.avatar,
        state: row.state === '1' ? '1' : '0',
        online: Boolean(row.present),
      })),
    };
  }

  async unreadLetters(): Promise<number> {
    return (await this.repo.unreadLetters()).count;
  }
}
