import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { DialectName } from '../../db/dialect.js';
import type { Db } from '../../db/index.js';
import type { OutboundClient } from '../../lib/outbound.js';
import type { Sealer } from '../../lib/sealed.js';
import type { Bus } from '../../realtime/bus.js';
import type { EventHub } from '../../realtime/domain-events.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ConversationRepository } from '../conversations/repository.js';
import type { Notices } from '../notices/service.js';
import { DeliveryProcess } from './delivery-process.js';
import { WebhookHealth } from './health.js';
import { BusKick } from './kick.js';
import { moveEarlierDeliveries, openSqliteLog, sharedLog } from './log-store.js';
import { WebhookPublisher } from './publisher.js';
import { WebhookRepository } from './repository.js';
import { WebhookService } from './service.js';

/**
 * The webhooks as a server process runs them: the service the routes use, the publisher that queues
 * events in their changes' transactions, and whoever sends the deliveries (this server's delivery
 * process, or with `WEBHOOK_DELIVERY=worker` the worker processes, woken through the bus).
 */
export async function setUpWebhooks(parts: {
  config: Config;
  db: Db;
  dialect: DialectName;
  bus: Bus;
  events: EventHub;
  notices: Notices;
  audit: AuditLog;
  sealer: Sealer;
  outbound: OutboundClient;
  conversations: ConversationRepository;
  log: FastifyBaseLogger;
  now: () => number;
}) {
  const { config, db, bus, log, now } = parts;
  const deliveries = parts.dialect === 'sqlite' ? await openSqliteLog(config.dataDir, config.sqliteSynchronous) : sharedLog(db);
  const moved = await moveEarlierDeliveries(db, deliveries);
  if (moved > 0) log.info({ moved }, 'webhook deliveries moved into their own log');
  const repo = new WebhookRepository(db, parts.dialect, deliveries);
  const health = new WebhookHealth(db, repo, parts.notices, log, now);
  const delivery =
    config.webhooks.delivery === 'here'
      ? new DeliveryProcess(
          {
            dataDir: config.dataDir,
            databaseUrl: config.databaseUrl,
            databaseSchema: config.databaseSchema,
            sqliteSynchronous: config.sqliteSynchronous,
            secretKey: config.secretKey,
            outboundAllow: config.outboundAllow,
            webhooks: config.webhooks,
            priority: config.webhooks.deliveryPriority,
          },
          repo,
          health,
          log,
          // Every 60 looks: a minute at the default WEBHOOK_POLL_MS.
          config.webhooks.pollMs * 60,
        )
      : undefined;
  const kick = delivery ?? new BusKick(bus, (error: unknown) => log.warn({ err: error }, 'webhook workers not woken'), undefined, now);
  const service = new WebhookService(db, repo, parts.sealer, parts.outbound, parts.audit, kick, now);
  // Which webhooks are enabled is kept in each process; a change anywhere makes every process read it again.
  const changed = () => {
    bus.publish({ type: 'webhooks.changed' }).catch((error: unknown) => log.warn({ err: error }, 'webhook change not told'));
  };
  service.onChanged = changed;
  health.onDisabled = () => {
    service.forget();
    changed();
  };
  bus.subscribe((event) => {
    if (event.type === 'webhooks.changed') service.forget();
  });
  const publisher = new WebhookPublisher(db, parts.conversations, service);
  publisher.subscribe(parts.events);
  return {
    service,
    outbox: publisher.outbox,
    start: () => delivery?.startIfNeeded(),
    async stop(): Promise<void> {
      await delivery?.stop();
      if (kick instanceof BusKick) kick.stop();
      await deliveries.close();
    },
  };
}
