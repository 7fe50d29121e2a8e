import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { CloseCode } from '@parley/protocol';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { type WebSocket, WebSocketServer } from 'ws';

/**
 * What a socket's handler may keep of the request that opened it. A socket lives for hours, so it holds
 * these few strings, never the request: a kept `IncomingMessage`, Fastify request and reply with their
 * headers and logger cost more than the socket itself (bench/README.md, "Sockets").
 */
export interface SocketRequest {
  /** The query's parameters (the first value of each). */
  query: Readonly<Record<string, string>>;
  /** The client's address, as `req.ip` reads it (a TRUST_PROXY peer's X-Forwarded-For believed). */
  ip: string;
  acceptLanguage: string | undefined;
}

export type SocketHandler = (socket: WebSocket, req: SocketRequest) => Promise<void>;

declare module 'fastify' {
  interface FastifyInstance {
    /** Every accepted WebSocket of this process. */
    websocketServer: WebSocketServer;
  }
}

/** Where the upgrading TCP socket and its first bytes wait while Fastify routes the request. */
const UPGRADE = Symbol('parley.upgrade');
interface Upgrading extends IncomingMessage {
  [UPGRADE]?: { socket: Duplex; head: Buffer; response: ServerResponse };
}

/** Most bytes a client's frame may have; each route bounds its own frames below this (frames.ts). */
const MAX_PAYLOAD = 1024 * 1024;

/**
 * WebSocket routes on Fastify's own router: an upgrade goes through the same hooks as any request (the
 * per-address socket caps, a route's `preValidation`), and a refusal answers its status with the API's
 * envelope; the accepted socket is then handed to its handler with a `SocketRequest` alone.
 */
export class SocketRoutes {
  /** Every accepted socket of this process (told "going away" on shutdown). */
  readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  /** The server's logger (not a request's: a socket outlives its request). */
  readonly log: FastifyBaseLogger;

  constructor(
    private readonly app: FastifyInstance,
    /** How long sockets are given to answer "going away" at shutdown before they are dropped. */
    private readonly closingMs = 1000,
  ) {
    this.log = app.log;
    app.decorate('websocketServer', this.server);
    app.server.on('upgrade', (req: Upgrading, socket: Duplex, head: Buffer) => {
      // Node removes its own error listener before 'upgrade': a reset during the hooks must not throw.
      socket.on('error', destroyOnError);
      const response = new ServerResponse(req);
      req[UPGRADE] = { socket, head, response };
      try {
        response.assignSocket(socket as never);
        app.routing(req, response);
      } catch (error) {
        app.log.warn({ err: error }, 'socket upgrade failed');
        socket.destroy();
      }
    });
    // Refused before the handler (a cap, a preValidation, an unknown path): the answer is written, the
    // connection ends with it.
    app.addHook('onResponse', async (req) => {
      (req.raw as Upgrading)[UPGRADE]?.socket.destroy();
    });
    // On shutdown every socket hears "going away", so clients reconnect instead of reporting an error. The
    // sockets are waited for (a client that does not answer is dropped after a moment), so that what their
    // closing does (an agent's console closed, told to the others and the statistics) runs before the
    // storage closes, not against a closed database.
    app.addHook('preClose', (done) => {
      const closing = [...this.server.clients].map(
        (client) =>
          new Promise<void>((resolve) => {
            client.once('close', () => resolve());
            client.close(1001, 'server shutting down');
          }),
      );
      const drop = setTimeout(() => {
        for (const client of this.server.clients) client.terminate();
      }, this.closingMs);
      // However a socket ends, the close goes on: at twice the time even if a dropped one never said so.
      let last: NodeJS.Timeout | undefined;
      const atTheLatest = new Promise<void>((resolve) => {
        last = setTimeout(resolve, 2 * this.closingMs);
      });
      void Promise.race([Promise.all(closing), atTheLatest]).then(() => {
        clearTimeout(drop);
        clearTimeout(last);
        this.server.close(() => done());
      });
    });
  }

  /** Runs `stop` when the server closes. */
  onClose(stop: () => void | Promise<void>): void {
    this.app.addHook('onClose', async () => stop());
  }

  /** A GET route at `path` that accepts WebSocket upgrades (a plain GET answers 404). */
  add(path: string, options: Pick<RouteShorthandOptions, 'preValidation'>, handler: SocketHandler): void {
    const { app } = this;
    app.get(path, options, (req, reply) => {
      const upgrading = (req.raw as Upgrading)[UPGRADE];
      if (!upgrading) return reply.code(404).send();
      reply.hijack();
      const { socket, head, response } = upgrading;
      // From here nothing refers back to the request: the socket forgets its stand-in response.
      response.detachSocket(socket as never);
      (req.raw as Upgrading)[UPGRADE] = undefined;
      const request = socketRequest(req);
      this.server.handleUpgrade(req.raw, socket, head, (ws) => {
        // `ws` listens for errors of its own by now.
        socket.off('error', destroyOnError);
        ws.on('error', ignoreError);
        handler(ws, request).catch((error: unknown) => {
          // A handler that fails closes its socket as a server fault (clients retry), not a bare reset.
          app.log.error({ err: error }, 'socket handler failed');
          ws.close(CloseCode.serverError, 'server error');
        });
      });
    });
  }
}

function socketRequest(req: FastifyRequest): SocketRequest {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') query[name] = first;
  }
  const language = req.headers['accept-language'];
  return { query, ip: req.ip, acceptLanguage: typeof language === 'string' ? language : undefined };
}

function destroyOnError(this: Duplex): void {
  this.destroy();
}

/**
 * An established socket failed (a reset, a frame over the largest payload): `ws` has closed it with the
 * fitting code already; listening only keeps the error from being thrown as unhandled.
 */
function ignoreError(): void {}
