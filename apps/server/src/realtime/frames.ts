import { CloseCode, type Frame, HEARTBEAT, SocketCode } from '@parley/protocol';
import type { RawData, WebSocket } from 'ws';
import type { Liveness } from './liveness.js';

export function sendText(socket: WebSocket, text: string): void {
  if (socket.readyState === socket.OPEN) socket.send(text);
}

export function send(socket: WebSocket, frame: Frame): void {
  sendText(socket, JSON.stringify(frame));
}

export function sendError(socket: WebSocket, reason: string): void {
  send(socket, { code: SocketCode.error, data: { reason } });
}

/**
 * Listens to a socket's incoming frames the same way for agents and visitors: every frame counts as a
 * sign of life, the heartbeat is echoed, binary or oversized frames close this socket only, and text
 * that is not a `{ code }` object gets an error frame. Valid frames go to `onFrame`.
 */
export function onFrames(socket: WebSocket, liveness: Liveness, maxLength: number, onFrame: (frame: Frame) => void): void {
  socket.on('message', (raw: RawData, isBinary: boolean) => {
    liveness.touch(socket);
    if (isBinary) return socket.close(CloseCode.badFrame, 'text frames only');
    const text = raw.toString();
    if (text === HEARTBEAT) return socket.send(HEARTBEAT);
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
}
