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
  accepted: '2000',
  waiting: '2001',
  ended: '2004',
  withdrawn: '2015',
  tip: '2017',
  robot: '9000',
  error: '4000',
} as const;
export type SocketCodeValue = (typeof SocketCode)[keyof typeof SocketCode];

export interface Frame<T = unknown> {
  code: string;
  recipient?: string;
  data?: T;
}
