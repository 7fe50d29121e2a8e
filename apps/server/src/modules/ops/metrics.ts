import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** The routes whose successful answer means a message was stored (or found already stored: a retry). */
const MESSAGE_ROUTES: Record<string, string> = {
  '/api/visitor/message': 'visitor',
  '/api/talk/send': 'agent',
};

export interface SocketCounts {
  agents(): number;
  visitors(): number;
}

/**
 * The process's Prometheus metrics, in a registry of its own (each app built in one process, as the tests
 * do, counts for itself): HTTP requests and server errors by route pattern, open sockets, messages
 * acknowledged, and Node's default process metrics.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly errors = new Counter({
    name: 'parley_http_errors_total',
    help: 'HTTP requests answered with a 5xx status, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    registers: [this.registry],
  });
  private readonly messages = new Counter({
    name: 'parley_messages_total',
    help: 'Chat messages acknowledged as stored through the HTTP API, by sender',
    labelNames: ['sender'] as const,
    registers: [this.registry],
  });

  private readonly pushFailures = new Counter({
    name: 'parley_push_failures_total',
    help: 'Web Push sends to agents that failed (the push service refused or was not reached), by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  pushFailed(reason: string): void {
    this.pushFailures.inc({ reason });
  }

  constructor(sockets: SocketCounts) {
    new Gauge({
      name: 'parley_agent_sockets',
      help: 'Agent sockets open on this process',
      registers: [this.registry],
      collect() {
        this.set(sockets.agents());
      },
    });
    new Gauge({
      name: 'parley_visitor_sockets',
      help: 'Visitor sockets open on this process',
      registers: [this.registry],
      collect() {
        this.set(sockets.visitors());
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts every answer; unmatched paths share one label so that scanners cannot grow the series. */
  register(app: FastifyInstance): void {
    app.addHook('onResponse', (req, reply, done) => {
      const route = req.routeOptions.url ?? 'unmatched';
      const status = reply.statusCode;
      this.requests.inc({ method: req.method, route, status: String(status) });
      if (status >= 500) this.errors.inc({ method: req.method, route });
      const sender = MESSAGE_ROUTES[route];
      if (sender && req.method === 'POST' && status === 200) this.messages.inc({ sender });
      done();
    });
  }
}
