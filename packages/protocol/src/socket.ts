import type { AgentState } from './api.js';
import type { DeliveryUpdate, Message, MessageType, Visit, Visitor, VisitorState, WidgetSettings } from './chat.js';
import type { Mention, Note } from './notes.js';
import type { Letter } from './records.js';
import type { RobotAssist } from './robots.js';

/** Version of the wire protocol of CONTRACT.md; bumped on any breaking change. */
export const PROTOCOL_VERSION = 1;

/** The heartbeat frame, sent by clients every HEARTBEAT_MS and echoed by the server. */
export const HEARTBEAT = 'Y';
export const HEARTBEAT_MS = 5000;
/** A socket silent this long is closed by the server. */
export const SOCKET_IDLE_MS = 15_000;

export const CloseCode = {
  badToken: 4401,
  expiredToken: 4402,
  revoked: 4403,
  badFrame: 4400,
  idle: 4408,
  /** The server could not serve the socket (its database is away, …): not the client's fault, retry later. */
  serverError: 1011,
  /** The peer stopped reading (too much is waiting to be sent); reconnect and catch up with afterSeq. */
  tryAgainLater: 1013,
} as const;

/** Frame codes of CONTRACT §6. */
export const SocketCode = {
  hello: '0000',
  identify: '5000',
  sessionInvalid: '8000',
  visitorState: '8001',
  visitorOnline: '8002',
  visitorOffline: '8003',
  serviceMessage: '8005',
  visitorMessage: '8006',
  agentState: '8007',
  visit: '8010',
  typing: '8011',
  /** A visitor left a message (CONTRACT §7); data is the `Letter`. */
  letter: '8012',
  /**
   * A message of a conversation a supervisor lists but neither answers nor monitors; data is the `Message`.
   * It keeps the list's line (last message, umsg/smsg) current and alerts nobody.
   */
  listed: '8013',
  /** An internal note of a conversation, to its agent, its monitors and its author; never to a visitor. */
  note: '8014',
  /** A note mentions this agent (`@username`); data is the `Mention`, for that agent's consoles only. */
  mentioned: '8015',
  /** Agent assist: a visitor's message matched a robot pair; data is a `RobotAssist`, for the conversation's agent only. */
  assist: '8016',
  accepted: '2000',
  waiting: '2001',
  ended: '2004',
  withdrawn: '2015',
  tip: '2017',
  /** The chat-window settings changed; data is the visitor's new `WidgetSettings`. */
  settings: '2020',
  robot: '9000',
  error: '4000',
  /** A message sent over the socket (either side); answered by 8101 once stored, or 8102. */
  send: '8100',
  /** The message of an 8100, stored: data is the `Message`, as the HTTP send would answer it. */
  sent: '8101',
  /** An 8100 refused, with the status the HTTP send would have answered. */
  sendRefused: '8102',
  /** A message to a WeChat visitor was sent, or failed, or waits to be tried again (§11); data is a `DeliveryUpdate`. */
  delivery: '8020',
  /**
   * Console → server: whether this console is visible now (CONTRACT §14); data `{ visible }`. An agent none
   * of whose consoles is visible gets Web Push instead.
   */
  visibility: '8030',
} as const;
export type SocketCodeValue = (typeof SocketCode)[keyof typeof SocketCode];

/** A frame as it travels: what a peer sends is only known to be this until its code is checked. */
export interface Frame<T = unknown> {
  code: string;
  recipient?: string;
  data?: T;
}

export interface VisitorStateData {
  YQToken: string;
  state: VisitorState;
  serviceID: string | null;
}

export interface AgentStateData {
  uuid: string;
  /** The availability the agent chose: '0' online, '1' hidden. */
  state: AgentState;
  /** Whether a console of the agent is open now. */
  online: boolean;
}

export interface AcceptedData {
  serviceID: string;
  nickname: string;
  avatar: string;
}

/**
 * The payload of each frame code (CONTRACT §6). Where both directions use a code, fields only one side
 * carries are optional: agents get the visitor's `YQToken` in 8011 and 2015, visitors do not. The
 * console's 5000 carries `type` and `uuid` beside `code`, not in `data`.
 */
export interface SocketPayloads {
  '0000': undefined;
  '5000': undefined;
  '8000': undefined;
  '8001': VisitorStateData;
  '8002': Visitor;
  '8003': { YQToken: string };
  '8005': Message;
  '8006': Message;
  '8007': AgentStateData;
  '8010': Visit & { YQToken: string };
  '8011': { YQToken?: string; text: string };
  '8012': Letter;
  '8013': Message;
  '8014': Note;
  '8015': Mention;
  '8016': RobotAssist;
  '2000': AcceptedData;
  '2001': { position: number };
  '2004': { rate: boolean };
  '2015': { YQToken?: string; onlyID: string };
  '2017': Message;
  '2020': WidgetSettings;
  '9000': { name: string; avatar: string };
  '4000': { reason: string };
  '8100': SendData;
  '8101': Message;
  '8102': SendRefusedData;
  '8020': DeliveryUpdate;
  '8030': { visible: boolean };
}

/** An 8100's data: the HTTP send's body; agents name the visitor by its public id, visitors name nobody. */
export interface SendData {
  msg: string;
  onlyID: string;
  type?: MessageType;
  YQToken?: string;
}

export interface SendRefusedData {
  onlyID: string;
  /** What the HTTP send would have answered: 400, 403, 404, 409, 429, 503, 500. */
  status: number;
  msg: string;
}

/** A frame whose code tells its payload's type. */
export type FrameOf<C extends SocketCodeValue> = { code: C; recipient?: string } & (SocketPayloads[C] extends undefined
  ? { data?: undefined }
  : { data: SocketPayloads[C] });

/** Any frame of a known code. */
export type KnownFrame = { [C in SocketCodeValue]: FrameOf<C> }[SocketCodeValue];

type FrameArgs<C extends SocketCodeValue> = SocketPayloads[C] extends undefined ? [] : [data: SocketPayloads[C], recipient?: string];

/** Builds a frame; the code decides what `data` must be. `recipient` names the agent a frame is for. */
export function frame<C extends SocketCodeValue>(code: C, ...args: FrameArgs<C>): FrameOf<C> {
  const [data, recipient] = args;
  // The conditional type of FrameOf cannot be built from its parts without a cast; FrameArgs checked them.
  return { code, ...(recipient === undefined ? {} : { recipient }), ...(data === undefined ? {} : { data }) } as FrameOf<C>;
}

const WITHOUT_DATA: readonly string[] = [SocketCode.hello, SocketCode.identify, SocketCode.sessionInvalid];

/**
 * Whether a received frame has this code, and so this code's payload: the peer (our server) is trusted
 * for the payload's fields, but a frame of a code that carries data and came without any is not taken.
 */
export function isFrame<C extends SocketCodeValue>(received: Frame, code: C): received is FrameOf<C> {
  if (received.code !== code) return false;
  return WITHOUT_DATA.includes(code) || (typeof received.data === 'object' && received.data !== null);
}
