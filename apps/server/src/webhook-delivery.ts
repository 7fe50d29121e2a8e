// The webhook delivery program (see modules/webhooks/delivery-process.ts): a WebhookWorker in a child
// process of the server, with storage of its own, the whole process at a low priority.
import { openPostgres, openSqliteReader, type Storage } from './db/index.js';
import { OutboundClient } from './lib/outbound.js';
import { loadSealer } from './lib/sealed.js';
import { lowerThisProcess } from './lib/threads.js';
import type { DeliverySettings, FromDeliveryProcess, ToDeliveryProcess } from './modules/webhooks/delivery-process.js';
import type { WorkerLog } from './modules/webhooks/log.js';
import { openSqliteLog, sharedLog, type WebhookLog } from './modules/webhooks/log-store.js';
import { WebhookRepository } from './modules/webhooks/repository.js';
import { WebhookWorker } from './modules/webhooks/worker.js';

if (!process.send) throw new Error('the webhook delivery program runs as a child process of the server');

// The server is gone (ended, or killed): so is this program, at once, as a thread of its would be. What it
// had claimed and not recorded is claimed again once the claim's time has passed.
process.once('disconnect', () => process.exit(0));

const say = (message: FromDeliveryProcess) => {
  if (process.connected) process.send?.(message);
};

/** A log line crosses to the server's log as plain data; an error as its message and stack. */
function plain(detail: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(detail).map(([key, value]) => [key, value instanceof Error ? { message: value.message, stack: value.stack } : value]),
  );
}
const log: WorkerLog = {
  error: (detail, message) => say({ type: 'log', level: 'error', detail: plain(detail), message }),
  warn: (detail, message) => say({ type: 'log', level: 'warn', detail: plain(detail), message }),
  info: (detail, message) => say({ type: 'log', level: 'info', detail: plain(detail), message }),
};

// The settings (the secret key among them) come over the channel, never through the environment.
process.once('message', (first: ToDeliveryProcess) => {
  if (first.type !== 'start') return process.exit(1);
  main(first.settings).catch((error: unknown) => {
    log.error({ err: error }, 'the webhook delivery process could not start');
    process.exit(1);
  });
});

async function main(settings: DeliverySettings): Promise<void> {
  // The chat comes first: every thread here gives way to the server's whenever they wake (see lowerThisProcess).
  const lowered = lowerThisProcess(settings.priority);
  log.info({ deliveryPid: process.pid, ...lowered, asked: settings.priority }, 'webhook delivery process started');
  const storage: Storage = settings.databaseUrl
    ? await openPostgres(settings.databaseUrl, settings.databaseSchema, undefined)
    : openSqliteReader(settings.dataDir);
  const deliveries: WebhookLog = settings.databaseUrl
    ? sharedLog(storage.db)
    : await openSqliteLog(settings.dataDir, settings.sqliteSynchronous);
  const worker = new WebhookWorker(
    new WebhookRepository(storage.db, storage.dialect, deliveries),
    new OutboundClient(settings.outboundAllow),
    loadSealer(settings.dataDir, settings.secretKey),
    { report: async (reports) => say({ type: 'health', reports }) },
    settings.webhooks,
    log,
  );
  process.on('message', (message: ToDeliveryProcess) => {
    if (message.type === 'kick') worker.kick();
    else if (message.type === 'stop')
      void (async () => {
        try {
          await worker.stop();
          await deliveries.close();
          await storage.close();
        } finally {
          // Its last lines written to the channel first (closing it drops what is still queued), then gone.
          if (process.connected) process.send?.({ type: 'stopped' } satisfies FromDeliveryProcess, () => process.disconnect());
          else process.exit(0);
        }
      })();
  });
  worker.start();
}
