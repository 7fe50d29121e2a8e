import { pino } from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { migrate, openStorage } from './db/index.js';
import { LogStream } from './lib/log-stream.js';
import { ThreadedOutbound } from './lib/outbound-thread.js';
import { loadSealer } from './lib/sealed.js';
import { MailSender } from './modules/mail/sender.js';
import { NoticeRepository } from './modules/notices/repository.js';
import { Notices } from './modules/notices/service.js';
import { WebhookHealth } from './modules/webhooks/health.js';
import { WebhookRepository } from './modules/webhooks/repository.js';
import { WebhookWorker } from './modules/webhooks/worker.js';
import { type Bus, LocalBus, RedisBus } from './realtime/bus.js';

/**
 * `npm run webhooks:worker`: a process that only sends webhook deliveries, for servers started with
 * `WEBHOOK_DELIVERY=worker` on the same PostgreSQL (and Redis, which wakes it when an event is queued;
 * without Redis it looks every `WEBHOOK_POLL_MS`). Run one or several: each delivery goes out once.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env, new URL('../../..', import.meta.url).pathname);
  if (!config.databaseUrl)
    throw new ConfigError('the webhook worker needs DATABASE_URL (PostgreSQL): with SQLite the server delivers itself');
  const logStream = new LogStream();
  const log = pino({ level: config.logLevel, base: { role: 'webhooks' } }, logStream);
  const storage = await openStorage(config);
  storage.onConnectionError = (error) => log.warn({ err: error }, 'database connection error');
  await migrate(storage);
  const bus: Bus = config.redisUrl ? await RedisBus.connect(config.redisUrl, config.redisPrefix) : new LocalBus();
  if (bus instanceof RedisBus) bus.onWarning = (message) => log.warn(message);
  // Its HTTP exchanges on a thread of their own: the database's work and the sending go on side by side.
  const outbound = new ThreadedOutbound(config.outboundAllow);
  const mailSender = new MailSender();
  // The only notice a worker gives (a webhook disabled) goes to Admins' consoles, never by mail.
  const notices = new Notices(
    new NoticeRepository(storage.db),
    { sender: mailSender, server: () => undefined, siteName: () => '', language: config.siteLanguage },
    log,
  );
  const repo = new WebhookRepository(storage.db, storage.dialect);
  const health = new WebhookHealth(storage.db, repo, notices, log);
  const worker = new WebhookWorker(repo, outbound, loadSealer(config.dataDir, config.secretKey), health, config.webhooks, log);
  // The servers keep which webhooks are enabled: one disabled here is read again there.
  health.onDisabled = () => {
    bus.publish({ type: 'webhooks.changed' }).catch((error: unknown) => log.warn({ err: error }, 'webhook change not told'));
  };
  bus.subscribe((event) => {
    if (event.type === 'webhooks.queued') worker.kick();
  });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info(`${signal} received, closing`);
    const force = setTimeout(() => process.exit(1), config.shutdownTimeoutMs);
    force.unref();
    try {
      await worker.stop();
      outbound.close();
      await mailSender.close();
      await bus.close();
      await storage.close();
      await logStream.drained();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));

  worker.start();
  // Printed whatever the log level: scripts and people wait for this line.
  process.stdout.write(`Parley webhook worker delivering (storage ${storage.dialect}, bus ${config.redisUrl ? 'redis' : 'local'})\n`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else
    process.stderr.write(
      `the webhook worker could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  process.exit(1);
});
