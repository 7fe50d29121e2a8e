// The webhook delivery thread's program (see modules/webhooks/delivery-thread.ts): a WebhookWorker on a
// thread of the server's process, with storage of its own, at a low priority.
import { parentPort, workerData } from 'node:worker_threads';
import { openPostgres, openSqliteReader, type Storage } from './db/index.js';
import { OutboundClient } from './lib/outbound.js';
import { loadSealer } from './lib/sealed.js';
import { lowerThisThread } from './lib/threads.js';
import type { DeliverySettings, FromDeliveryThread, ToDeliveryThread } from './modules/webhooks/delivery-thread.js';
import type { WorkerLog } from './modules/webhooks/log.js';
import { openSqliteLog, sharedLog, type WebhookLog } from './modules/webhooks/log-store.js';
import { WebhookRepository } from './modules/webhooks/repository.js';
import { WebhookWorker } from './modules/webhooks/worker.js';

if (!parentPort) throw new Error('the webhook delivery program runs on a thread');
const port = parentPort;
const settings = workerData as DeliverySettings;
const say = (message: FromDeliveryThread) => port.postMessage(message);

/** A log line crosses to the process's log as plain data; an error as its message and stack. */
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

// The chat's thread comes first: this one gives way to it whenever it wakes (see lowerThisThread).
const lowered = lowerThisThread(settings.priority);
log.info({ ...lowered, asked: settings.priority }, 'webhook delivery thread started');

async function main(): Promise<void> {
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
  port.on('message', (message: ToDeliveryThread) => {
    if (message.type === 'kick') worker.kick();
    else if (message.type === 'stop')
      void (async () => {
        try {
          await worker.stop();
          await deliveries.close();
          await storage.close();
        } finally {
          say({ type: 'stopped' });
        }
      })();
  });
  worker.start();
}

main().catch((error: unknown) => {
  log.error({ err: error }, 'the webhook delivery thread could not start');
  process.exit(1);
});
