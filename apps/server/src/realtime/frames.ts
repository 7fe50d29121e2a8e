import type { Duplex } from 'node:stream';
import { CloseCode, type Frame, frame, HEARTBEAT, type KnownFrame, SocketCode } from '@parley/protocol';
import type { RawData, WebSocket } from 'ws';
import type { Liveness } from './liveness.js';

/** Most bytes a socket may have waiting to be sent; a peer that stops reading is closed beyond it (§6). */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
/** A peer that does not read will not answer the close either: the socket is cut after this long. */
export const SLOW_PEER_CLOSE_MS = 5000;

export function sendText(socket: WebSocket, text: string): void {
  if (socket.readyState !== socket.OPEN) return;
  if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
    // What this turn held back (below) is not the peer's doing: handed to the system first, only what it
    // cannot take counts against the peer, as if every frame had been written at once.
    letGoOf(socket);
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      closeSlowPeer(socket);
      return;
    }
  }
  holdUntilTurnEnds(socket);
  socket.send(text);
}

/** The connections holding this turn's frames back, each let go once when the turn's work is done. */
const held = new Set<Duplex>();
let lettingGo = false;

const connectionOf = (socket: WebSocket) => (socket as unknown as { _socket?: Duplex })._socket;

/**
 * A batch of messages commits at once and fans out to the same agents' sockets: written one frame at a
 * time, each frame is a system call of its own (a quarter of the server's time at 5,000 messages a
 * second). Corked until the turn ends (the tick after the batch's promises have all run), a socket's
 * frames of one turn leave in one write, and no frame waits longer than the turn that sent it.
 */
function holdUntilTurnEnds(socket: WebSocket): void {
  const connection = connectionOf(socket);
  if (!connection || held.has(connection)) return;
  connection.cork();
  held.add(connection);
  if (lettingGo) return;
  lettingGo = true;
  process.nextTick(letGo);
}

function letGo(): void {
  lettingGo = false;
  const connections = [...held];
  held.clear();
  // uncork on a connection already ended or destroyed does nothing: end() has flushed what it held.
  for (const connection of connections) connection.uncork();
}

function letGoOf(socket: WebSocket): void {
  const connection = connectionOf(socket);
  if (connection && held.delete(connection)) connection.uncork();
}

/** Closes with 1013 (the client reconnects and catches up with afterSeq), and cuts the socket if the close stalls. */
function closeSlowPeer(socket: WebSocket): void {
  socket.close(CloseCode.tryAgainLater, 'peer too slow');
  const timer = setTimeout(() => socket.terminate(), SLOW_PEER_CLOSE_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

export function send(socket: WebSocket, outgoing: KnownFrame): void {
  sendText(socket, JSON.stringify(outgoing));
}

export function sendError(socket: WebSocket, reason: string): void {
  send(socket, frame(SocketCode.error, { reason }));
}

/**
 * Listens to a socket's incoming frames the same way for agents and visitors: every frame counts as a
 * sign of life, the heartbeat is echoed, binary or oversized frames close this socket only, and text
 * that is not a `{ code }` object gets an error frame. Valid frames go to `onFrame`.
 */
/**
 * Holds a new socket's incoming frames back while its handler looks the client up (an await): a frame
 * the client sends at once would otherwise be emitted before `onFrames` listens, and be lost.
 */
export function holdFrames(socket: WebSocket): void {
  socket.pause();
}

/** Closes a socket refused before it was read from; reading again lets the close handshake finish. */
export function refuse(socket: WebSocket, code: number, reason: string): void {
  socket.resume();
  socket.close(code, reason);
}

export function onFrames(socket: WebSocket, liveness: Liveness, maxLength: number, onFrame: (frame: Frame) => void): void {
  socket.on('message', (raw: RawData, isBinary: boolean) => {
    liveness.touch(socket);
    if (isBinary) return socket.close(CloseCode.badFrame, 'text frames only');
    const text = raw.toString();
    if (text === HEARTBEAT) return sendText(socket, HEARTBEAT);
    if (text.length > maxLength) return socket.close(CloseCode.badFrame, 'frame too large');
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return sendError(socket, 'invalid JSON');
    }
    if (typeof frame !== 'object' || frame === null || typeof (frame as { code?: unknown }).code !== 'string') {
      return sendError(socket, 'a frame is an object with a string code');
    }
    onFrame(frame as Frame);
  });
  // Frames held back while the client was looked up (holdFrames) are read from here on.
  socket.resume();
}
