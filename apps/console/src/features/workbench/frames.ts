import {
  type AgentPeer,
  type AgentStateData,
  type DeliveryUpdate,
  type Frame,
  isFrame,
  type Message,
  SocketCode,
  type Visit,
  type Visitor,
  type VisitorState,
} from '@parley/protocol';
import { addVisit, type ChatMessage, type Conversation, hasGap, mergeMessages, visitorFromFrame } from './model';

/** What the workbench knows live: fed by HTTP reads, then kept current by socket frames. */
export interface LiveData {
  /** This agent's uuid, to tell frames addressed to it. */
  me: string;
  visitors: Record<string, Visitor>;
  conversations: Record<string, Conversation>;
  visits: Record<string, Visit[]>;
  /** The visitor's draft preview (8011), by visitor. */
  typing: Record<string, string>;
  /** Availability of agents learned from 8007 ('0' online, '1' hidden): the seed's monitoredList. */
  agents: Record<string, string>;
  /** The open conversation's visitor (the seed's isActive); '' when none. */
  selected: string;
}

export type Effect =
  /** 0000: identify this socket as this agent's (5000). */
  | { kind: 'identify' }
  /** 8000: the session is gone; clear local storage and reload. */
  | { kind: 'reload' }
  /** A visitor came online: visitor sound, title blink, 'newUser' notification. */
  | { kind: 'newVisitor'; visitor: Visitor }
  /** A message for this agent from someone else: message sound, title blink, 'newMsg' notification. */
  | { kind: 'newMessage'; message: Message }
  /** A hole in seq: read what was missed with afterSeq. */
  | { kind: 'catchUp'; YQToken: string }
  /** A frame about a visitor not held: read the list again. */
  | { kind: 'refreshList' }
  /** A visitor message arrived in the open conversation: it is read. */
  | { kind: 'markRead'; YQToken: string };

export interface Applied {
  data: LiveData;
  effects: Effect[];
}

export function emptyLive(me = ''): LiveData {
  return { me, visitors: {}, conversations: {}, visits: {}, typing: {}, agents: {}, selected: '' };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isMessage(value: unknown): value is Message {
  return isRecord(value) && typeof value.YQToken === 'string' && typeof value.onlyID === 'string' && typeof value.seq === 'number';
}

function tokenOf(data: unknown): string {
  return isRecord(data) && typeof data.YQToken === 'string' ? data.YQToken : '';
}

const STATES: readonly string[] = ['wait', 'current', 'end', 'robot', 'monitor'];

/** Seed §4: the state each legacy state code sets (8001 carries its own). */
const STATE_CODES: Record<string, VisitorState> = {
  '1001': 'monitor',
  '2000': 'current',
  '2001': 'wait',
  '2002': 'current',
  '2003': 'wait',
  '2004': 'end',
  '2016': 'current',
  '9000': 'robot',
};

const ONLINE_CODES = new Set(['8002', '2005', '2006']);
const OFFLINE_CODES = new Set(['8003', '2009']);
const SERVICE_MESSAGE_CODES = new Set(['8005', '2010']);

function withVisitor(data: LiveData, token: string, patch: (visitor: Visitor) => Visitor): LiveData {
  const visitor = data.visitors[token];
  if (!visitor) return data;
  return { ...data, visitors: { ...data.visitors, [token]: patch(visitor) } };
}

function setState(data: LiveData, token: string, state: VisitorState, serviceID: string | null | undefined, effects: Effect[]): LiveData {
  if (!data.visitors[token]) {
    effects.push({ kind: 'refreshList' });
    return data;
  }
  // Monitoring or ending a conversation does not change whose it was.
  const keepService = state === 'monitor' || state === 'end' || serviceID === undefined;
  return withVisitor(data, token, (visitor) => ({ ...visitor, state, serviceID: keepService ? visitor.serviceID : serviceID }));
}

/**
 * Stores a message in its conversation and in the list's preview. Counters move only the first time a
 * stored copy is seen, so a message that comes back both as an HTTP answer and as a frame counts once.
 */
function addMessage(
  data: LiveData,
  message: ChatMessage,
  counter: 'umsg' | 'smsg' | null,
  effects: Effect[],
): { data: LiveData; fresh: boolean } {
  const token = message.YQToken;
  const conversation = data.conversations[token];
  const visitor = data.visitors[token];
  const known =
    conversation?.messages.some((held) => held.onlyID === message.onlyID && held.seq > 0) === true ||
    (visitor?.lastMessage?.onlyID === message.onlyID && visitor.lastMessage.seq > 0);
  let next = data;
  if (conversation) {
    if (conversation.loaded && !known && hasGap(conversation.messages, message.seq)) effects.push({ kind: 'catchUp', YQToken: token });
    next = {
      ...next,
      conversations: { ...next.conversations, [token]: { ...conversation, messages: mergeMessages(conversation.messages, [message]) } },
    };
  }
  if (!visitor) {
    effects.push({ kind: 'refreshList' });
    return { data: next, fresh: !known };
  }
  const newer = !visitor.lastMessage || message.seq >= visitor.lastMessage.seq;
  const updated: Visitor = {
    ...visitor,
    lastMessage: newer ? message : visitor.lastMessage,
    umsg: visitor.umsg + (!known && counter === 'umsg' ? 1 : 0),
    smsg: visitor.smsg + (!known && counter === 'smsg' ? 1 : 0),
  };
  return { data: { ...next, visitors: { ...next.visitors, [token]: updated } }, fresh: !known };
}

function withdraw(data: LiveData, token: string, onlyID: string): LiveData {
  const conversation = data.conversations[token];
  let next = data;
  if (conversation) {
    const messages = conversation.messages.map((message) =>
      message.onlyID === onlyID ? { ...message, withdrawn: true, msg: '' } : message,
    );
    next = { ...next, conversations: { ...next.conversations, [token]: { ...conversation, messages } } };
  }
  return withVisitor(next, token, (visitor) =>
    visitor.lastMessage?.onlyID === onlyID ? { ...visitor, lastMessage: { ...visitor.lastMessage, withdrawn: true, msg: '' } } : visitor,
  );
}

/** A WeChat delivery (8020): the message, and the list's last message, say whether WeChat took it. */
function deliver(data: LiveData, update: DeliveryUpdate): LiveData {
  const { YQToken: token, onlyID, delivery, deliveryError } = update;
  const patch = <M extends Message>(message: M): M => (message.onlyID === onlyID ? { ...message, delivery, deliveryError } : message);
  const conversation = data.conversations[token];
  let next = data;
  if (conversation) {
    next = { ...next, conversations: { ...next.conversations, [token]: { ...conversation, messages: conversation.messages.map(patch) } } };
  }
  return withVisitor(next, token, (visitor) => (visitor.lastMessage ? { ...visitor, lastMessage: patch(visitor.lastMessage) } : visitor));
}

/** Seed §4 "Visitor state by pushed codes", as a pure function of the held data and one frame. */
export function applyFrame(data: LiveData, frame: Frame): Applied {
  const effects: Effect[] = [];
  const payload = frame.data;
  const token = tokenOf(payload);
  const code = frame.code;

  if (code === SocketCode.hello) return { data, effects: [{ kind: 'identify' }] };
  if (code === SocketCode.sessionInvalid) return { data, effects: [{ kind: 'reload' }] };

  if (isFrame(frame, SocketCode.visitorState)) {
    const { YQToken, state, serviceID } = frame.data;
    if (!STATES.includes(state)) return { data, effects };
    return { data: setState(data, YQToken, state, serviceID, effects), effects };
  }

  const legacyState = STATE_CODES[code];
  if (legacyState) {
    if (!token || !isRecord(payload)) return { data, effects };
    let serviceID: string | null | undefined;
    if (code === '2000' && typeof payload.serviceID === 'string') serviceID = payload.serviceID;
    if (code === '2016') serviceID = frame.recipient ?? undefined;
    let next = setState(data, token, legacyState, serviceID, effects);
    // 2000 and 2001 may bring a tip and (2000) the agent's first reply.
    for (const extra of [payload.tip, payload.message]) if (isMessage(extra)) next = addMessage(next, extra, null, effects).data;
    return { data: next, effects };
  }

  if (ONLINE_CODES.has(code)) {
    if (!token || !isRecord(payload)) return { data, effects };
    const held = data.visitors[token];
    const incoming = visitorFromFrame(payload as Partial<Visitor> & { YQToken: string });
    const { leftAt: _back, ...still } = held ?? incoming;
    const visitor = { ...still, ...incoming, online: true };
    if (code === '8002') effects.push({ kind: 'newVisitor', visitor });
    return { data: { ...data, visitors: { ...data.visitors, [token]: visitor } }, effects };
  }

  if (OFFLINE_CODES.has(code)) {
    const held = data.visitors[token];
    if (!held) return { data, effects };
    const { [token]: _typing, ...typing } = data.typing;
    // A visitor with an open conversation (or the one on screen) stays, marked as gone.
    if (held.state === 'end' && data.selected !== token) {
      const { [token]: _gone, ...visitors } = data.visitors;
      return { data: { ...data, visitors, typing }, effects };
    }
    // The time it left shows in the list's "visitor left" group; a repeated notice keeps the first.
    const gone = { ...held, online: false, leftAt: held.leftAt ?? frameTime(frame) };
    return { data: { ...data, visitors: { ...data.visitors, [token]: gone }, typing }, effects };
  }

  if (SERVICE_MESSAGE_CODES.has(code) || code === SocketCode.visitorMessage || code === SocketCode.tip) {
    if (!isMessage(payload)) return { data, effects };
    const counter = code === '8006' ? 'umsg' : code === '2017' || payload.role === 'tip' ? null : 'smsg';
    const added = addMessage(data, payload, counter, effects);
    let next = added.data;
    if (code === '8006') {
      const { [payload.YQToken]: _typing, ...typing } = next.typing;
      next = { ...next, typing };
      if (added.fresh) {
        if (next.selected === payload.YQToken) effects.push({ kind: 'markRead', YQToken: payload.YQToken });
        else next = withVisitor(next, payload.YQToken, (visitor) => ({ ...visitor, unreadNumber: visitor.unreadNumber + 1 }));
      }
    }
    if (added.fresh && code !== '2017' && isForMe(next, frame, payload)) effects.push({ kind: 'newMessage', message: payload });
    return { data: next, effects };
  }

  // Another agent's conversation, listed to a supervisor: its line follows, and nobody is alerted.
  if (code === SocketCode.listed) {
    if (!isMessage(payload)) return { data, effects };
    const counter = payload.role === 'user' ? 'umsg' : payload.role === 'tip' ? null : 'smsg';
    const next = addMessage(data, payload, counter, effects).data;
    // The visitor's message is the draft sent: a preview relayed while the visitor waited for anyone would
    // otherwise stay on the supervisor's line (the cleared draft goes to the conversation's agent alone).
    if (payload.role !== 'user' || next.typing[payload.YQToken] === undefined) return { data: next, effects };
    const { [payload.YQToken]: _typing, ...typing } = next.typing;
    return { data: { ...next, typing }, effects };
  }

  if (isFrame(frame, SocketCode.visit)) {
    const { YQToken, URL, title, created_at } = frame.data;
    const visit: Visit = { URL, title, created_at };
    return { data: { ...data, visits: { ...data.visits, [YQToken]: addVisit(data.visits[YQToken] ?? [], visit) } }, effects };
  }

  if (isFrame(frame, SocketCode.agentState)) {
    const { uuid, state } = frame.data;
    return { data: { ...data, agents: { ...data.agents, [uuid]: state } }, effects };
  }

  if (isFrame(frame, SocketCode.typing)) {
    const { YQToken, text } = frame.data;
    if (!YQToken) return { data, effects };
    return { data: { ...data, typing: { ...data.typing, [YQToken]: text } }, effects };
  }

  if (isFrame(frame, SocketCode.delivery)) return { data: deliver(data, frame.data), effects };

  if (isFrame(frame, SocketCode.withdrawn)) {
    const { YQToken, onlyID } = frame.data;
    if (!YQToken) return { data, effects };
    return { data: withdraw(data, YQToken, onlyID), effects };
  }

  return { data, effects };
}

/**
 * Seed §4: 8005/8006 addressed to this agent alert it. Its own messages coming back do not, and a
 * waiting visitor's message (addressed to nobody yet) alerts every agent who could take it.
 */
function isForMe(data: LiveData, frame: Frame, message: Message): boolean {
  if (message.role === 'service' && message.serviceID === data.me) return false;
  if (frame.recipient) return frame.recipient === data.me;
  return frame.code === '8006' && data.visitors[message.YQToken]?.state === 'wait';
}

/**
 * The agent list (transfer targets, monitoredList) patched by an 8007: availability and whether a console
 * is open. Undefined when the agent is not in the list, which must then be read again.
 */
export function patchPeers(peers: readonly AgentPeer[], change: AgentStateData): AgentPeer[] | undefined {
  if (!peers.some((peer) => peer.uuid === change.uuid)) return undefined;
  return peers.map((peer) => (peer.uuid === change.uuid ? { ...peer, state: change.state, online: change.online } : peer));
}

/** When a frame was sent, if it says; else when it arrived. */
function frameTime(frame: Frame): string {
  const sent = isRecord(frame.data) && typeof frame.data.time === 'string' ? Date.parse(frame.data.time) : Number.NaN;
  return new Date(Number.isNaN(sent) ? Date.now() : sent).toISOString();
}
