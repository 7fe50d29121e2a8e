import { fileURLToPath } from 'node:url';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { migrate, openStorage } from './db/index.js';
import { DataDirBusyError, lockDataDir } from './db/lock.js';
import { seed } from './db/seed.js';
import { firstAdminNotice, serverUrl } from './lib/first-admin.js';
import { LogStream } from './lib/log-stream.js';
import { type Bus, LocalBus, RedisBus } from './realtime/bus.js';

const appRoot = fileURLToPath(new URL('../../..', import.meta.url));

async function main(): Promise<void> {
  const config = loadConfig(process.env, appRoot);
  // PostgreSQL serves many processes; a SQLite DATA_DIR serves one.
  const lock = config.databaseUrl ? null : lockDataDir(config.dataDir);
  const storage = await openStorage(config);
  await migrate(storage);
  const seeded = await seed(storage.db, config.adminUsername, config.adminPassword);
  const bus: Bus = config.redisUrl ? await RedisBus.connect(config.redisUrl, config.redisPrefix) : new LocalBus();
  const logStream = new LogStream();
  const app = await buildApp({ config, storage, bus, logStream });
  if (bus instanceof RedisBus) bus.onWarning = (message) => app.log.warn(message);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal} received, closing`);
    // Nothing at exit waits on the log (see LogStream), so this fires whatever its destination does.
    const force = setTimeout(() => process.exit(1), config.shutdownTimeoutMs);
    force.unref();
    try {
      await app.close();
      await bus.close();
      await storage.close();
      lock?.release();
      // The last lines, as long as the destination takes them; the deadline above still holds.
      await logStream.drained();
    } finally {
      process.exit(0);
    }
  };
  // Before the line below: whoever reads it may signal at once.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // The last resort: every background task handles its own failures, but a rejection missed during a
  // database or Redis outage must be logged, not end a process that is otherwise serving.
  process.on('unhandledRejection', (reason) => app.log.error({ err: reason }, 'unhandled rejection'));

  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = serverUrl(config.host, port);
  if (seeded.generatedPassword) {
    // Shown once, on the first start only: the hash is all that is kept.
    process.stdout.write(firstAdminNotice(seeded.createdAdmin ?? config.adminUsername, seeded.generatedPassword, config.publicUrl ?? url));
  }

  // Printed whatever the log level: scripts and people wait for this line to learn the real port.
  process.stdout.write(`Parley listening on ${url} (storage ${storage.dialect}, bus ${config.redisUrl ? 'redis' : 'local'})\n`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirBusyError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`Parley could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
