import { agentSendData, CloseCode, type Message, pushVisibilityData, SocketCode } from '@parley/protocol';
import type { WebSocket } from 'ws';
import { type AuthContext, type Authenticator, isSupervisor } from '../lib/caller.js';
import { ApiError } from '../lib/errors.js';
import { pickLang } from '../lib/i18n.js';
import type { Bus } from './bus.js';
import type { BusEvent } from './events.js';
import { holdFrames, onFrames, refuse, send, sendError, sendText } from './frames.js';
import type { Liveness } from './liveness.js';
import type { SocketRoutes } from './socket-routes.js';
import { SocketSends } from './socket-send.js';

/** Largest frame an agent may send; anything bigger closes that socket only. */
const MAX_AGENT_FRAME = 64 * 1024;

interface AgentConnection {
  socket: WebSocket;
  agentId: number;
  uuid: string;
  sessionId: number;
  /** Read once when the socket opens: a role changed later takes effect on the console's next socket. */
  supervisor: boolean;
  /** Whether the console shows (frame 8030); visible until it says otherwise. */
  visible: boolean;
}

/** The agents' sockets of this process, and the bus events that concern them. */
export class AgentSockets {
  private readonly byAgent = new Map<number, Set<AgentConnection>>();
  private readonly byUuid = new Map<string, Set<AgentConnection>>();
  /** Supervisors' sockets, apart: the list frame of a message goes to them alone, and costs nothing when none is open. */
  private readonly supervisors = new Set<AgentConnection>();
  /** Told when an agent's first socket opens here, and when its last one here closes. */
  onFirstConnection: (uuid: string) => Promise<void> = async () => {};
  onLastDisconnection: (uuid: string) => void = () => {};
  /** Told when a console of an agent becomes visible (+1) or stops being so (-1: hidden, or closed while visible). */
  onVisibility: (uuid: string, delta: 1 | -1) => void = () => {};

  constructor(bus: Bus) {
    bus.subscribe((event) => this.onEvent(event));
  }

  /** Resolves once the agent counts as present, so the console's hello means "you may get visitors". */
  async add(connection: AgentConnection): Promise<void> {
    addTo(this.byAgent, connection.agentId, connection);
    if (connection.supervisor) this.supervisors.add(connection);
    const first = !this.byUuid.has(connection.uuid);
    addTo(this.byUuid, connection.uuid, connection);
    if (connection.visible) this.onVisibility(connection.uuid, 1);
    if (first) await this.onFirstConnection(connection.uuid);
  }

  remove(connection: AgentConnection): void {
    removeFrom(this.byAgent, connection.agentId, connection);
    this.supervisors.delete(connection);
    removeFrom(this.byUuid, connection.uuid, connection);
    if (connection.visible) {
      connection.visible = false;
      this.onVisibility(connection.uuid, -1);
    }
    if (!this.byUuid.has(connection.uuid)) this.onLastDisconnection(connection.uuid);
  }

  /** The console of `connection` is visible, or not, now. */
  setVisible(connection: AgentConnection, visible: boolean): void {
    // Only while the socket is held: a frame read after the close must not count a closed console.
    if (connection.visible === visible || !this.byUuid.get(connection.uuid)?.has(connection)) return;
    connection.visible = visible;
    this.onVisibility(connection.uuid, visible ? 1 : -1);
  }

  count(): number {
    let total = 0;
    for (const set of this.byAgent.values()) total += set.size;
    return total;
  }

  private onEvent(event: BusEvent): void {
    if (event.type === 'frame.agents') {
      const text = JSON.stringify(event.frame);
      const targets =
        event.to === 'all' ? this.byUuid.values() : event.to.map((uuid) => this.byUuid.get(uuid) ?? new Set<AgentConnection>());
      for (const set of targets) for (const connection of set) sendText(connection.socket, text);
      // The message path's frames carry a list frame for supervisors; with none connected it is never written.
      if (event.supervisors && event.to !== 'all' && this.supervisors.size > 0) {
        const to = event.to;
        const listed = JSON.stringify(event.supervisors);
        for (const connection of this.supervisors) if (!to.includes(connection.uuid)) sendText(connection.socket, listed);
      }
    } else if (event.type === 'sessions.revoked') {
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

function addTo<K>(map: Map<K, Set<AgentConnection>>, key: K, connection: AgentConnection): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(connection);
}

function removeFrom<K>(map: Map<K, Set<AgentConnection>>, key: K, connection: AgentConnection): void {
  const set = map.get(key);
  set?.delete(connection);
  if (set?.size === 0) map.delete(key);
}

/** A message an agent sent over the socket (8100), stored as `POST /api/talk/send` stores it. */
export type AgentSend = (
  auth: AuthContext,
  input: { YQToken: string; msg: string; onlyID: string; type?: Message['type'] | undefined },
) => Promise<Message>;

export function registerAgentSocket(
  routes: SocketRoutes,
  auth: Authenticator,
  sockets: AgentSockets,
  liveness: Liveness,
  agentSend: AgentSend,
): void {
  const { log } = routes;
  routes.add('/ws/agent', {}, async (socket, req) => {
    holdFrames(socket);
    let context: AuthContext;
    try {
      context = await auth.authenticate(req.query.token);
    } catch (error) {
      if (!(error instanceof ApiError)) {
        // Not the token's fault (the database is away): the console must retry, not sign out.
        log.warn({ err: error }, 'agent socket authentication failed');
        refuse(socket, CloseCode.serverError, 'server error');
        return;
      }
      const expired = error.status === 402;
      refuse(socket, expired ? CloseCode.expiredToken : CloseCode.badToken, expired ? 'token expired' : 'bad token');
      return;
    }
    // An Admin who must set up two-factor sign-in first gets nothing else, a socket included.
    if (context.mfaSetupRequired) {
      refuse(socket, CloseCode.revoked, 'two-factor sign-in required');
      return;
    }
    const connection: AgentConnection = {
      socket,
      agentId: context.agentId,
      uuid: context.uuid,
      sessionId: context.sessionId,
      supervisor: isSupervisor(context),
      visible: true,
    };
    liveness.track(socket);
    socket.on('close', () => sockets.remove(connection));
    await sockets.add(connection);
    // Closed while presence was being recorded: the close handler ran before the add.
    if (socket.readyState !== socket.OPEN) {
      socket.resume();
      return sockets.remove(connection);
    }
    // The socket's session stands for each send: revoking it (logout, a disabled account) closes the socket,
    // and a refreshed token carries the session on (sessions.renewed).
    const sends = new SocketSends(
      socket,
      pickLang(req.acceptLanguage),
      agentSendData,
      (data) => agentSend(context, data),
      (error) => log.error({ err: error }, 'agent socket send failed'),
    );
    onFrames(socket, liveness, MAX_AGENT_FRAME, (frame) => {
      if (frame.code === SocketCode.identify) return;
      if (frame.code === SocketCode.send) return sends.offer(frame.data);
      if (frame.code === SocketCode.visibility) {
        const data = pushVisibilityData.safeParse(frame.data);
        if (data.success) return sockets.setVisible(connection, data.data.visible);
        return sendError(socket, 'bad visibility frame');
      }
      sendError(socket, `unknown code ${frame.code.slice(0, 16)}`);
    });
    send(socket, { code: SocketCode.hello });
  });
}
