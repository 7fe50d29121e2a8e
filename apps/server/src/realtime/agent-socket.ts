import { CloseCode, type Frame, HEARTBEAT, SocketCode } from '@parley/protocol';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { ApiError } from '../lib/errors.js';
import type { AuthService } from '../modules/auth/service.js';
import type { Bus } from './bus.js';
import type { BusEvent } from './events.js';
import type { Liveness } from './liveness.js';

/** Largest frame an agent may send; anything bigger closes that socket only. */
const MAX_AGENT_FRAME = 64 * 1024;

interface AgentConnection {
  socket: WebSocket;
  agentId: number;
  uuid: string;
  sessionId: number;
}

/** The agents' sockets of this process, and the bus events that concern them. */
export class AgentSockets {
  private readonly byAgent = new Map<number, Set<AgentConnection>>();

  constructor(bus: Bus) {
    bus.subscribe((event) => this.onEvent(event));
  }

  add(connection: AgentConnection): void {
    let set = this.byAgent.get(connection.agentId);
    if (!set) {
      set = new Set();
      this.byAgent.set(connection.agentId, set);
    }
    set.add(connection);
  }

  remove(connection: AgentConnection): void {
    const set = this.byAgent.get(connection.agentId);
    set?.delete(connection);
    if (set?.size === 0) this.byAgent.delete(connection.agentId);
  }

  count(): number {
    let total = 0;
    for (const set of this.byAgent.values()) total += set.size;
    return total;
  }

  private onEvent(event: BusEvent): void {
    if (event.type === 'sessions.revoked') {
      for (const connection of this.byAgent.get(event.agentId) ?? []) {
        if (event.sessionIds !== 'all' && !event.sessionIds.includes(connection.sessionId)) continue;
        send(connection.socket, { code: SocketCode.sessionInvalid });
        connection.socket.close(CloseCode.revoked, 'session ended');
      }
    } else if (event.type === 'sessions.renewed') {
      for (const connection of this.byAgent.get(event.agentId) ?? []) {
        if (connection.sessionId === event.from) connection.sessionId = event.to;
      }
    }
  }
}

export function send(socket: WebSocket, frame: Frame): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
}

export function registerAgentSocket(app: FastifyInstance, auth: AuthService, sockets: AgentSockets, liveness: Liveness): void {
  app.get('/ws/agent', { websocket: true }, async (socket, req) => {
    const token = (req.query as Record<string, unknown>).token;
    let context: Awaited<ReturnType<AuthService['authenticate']>>;
    try {
      context = await auth.authenticate(typeof token === 'string' ? token : undefined);
    } catch (error) {
      const expired = error instanceof ApiError && error.status === 402;
      socket.close(expired ? CloseCode.expiredToken : CloseCode.badToken, expired ? 'token expired' : 'bad token');
      return;
    }
    const connection: AgentConnection = { socket, agentId: context.agentId, uuid: context.uuid, sessionId: context.sessionId };
    sockets.add(connection);
    liveness.track(socket);
    socket.on('close', () => sockets.remove(connection));
    socket.on('message', (raw, isBinary) => {
      liveness.touch(socket);
      if (isBinary) return socket.close(CloseCode.badFrame, 'text frames only');
      const text = raw.toString();
      if (text === HEARTBEAT) return socket.send(HEARTBEAT);
      if (text.length > MAX_AGENT_FRAME) return socket.close(CloseCode.badFrame, 'frame too large');
      let frame: unknown;
      try {
        frame = JSON.parse(text);
      } catch {
        return send(socket, { code: SocketCode.error, data: { reason: 'invalid JSON' } });
      }
      if (!isFrame(frame)) return send(socket, { code: SocketCode.error, data: { reason: 'a frame is an object with a string code' } });
      if (frame.code === SocketCode.identify) return;
      send(socket, { code: SocketCode.error, data: { reason: `unknown code ${frame.code.slice(0, 16)}` } });
    });
    send(socket, { code: SocketCode.hello });
  });
}

function isFrame(value: unknown): value is Frame {
  return typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'string';
}
