import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's whole program. It is evaluated (not a file of its own) so that the same code runs from
 * the sources under test and from the bundle, and it loads better-sqlite3 from the path it is given.
 */
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.file);
database.pragma('busy_timeout = 5000');
const limitFrames = Math.max(1, Math.floor(workerData.walLimitBytes / database.pragma('page_size', { simple: true })));
// The log's length at the last pass: a log that has not grown since has had no write to start it over.
let lastLog = 0;
const pass = () => {
  try {
    const [done] = database.pragma('wal_checkpoint(PASSIVE)');
    if (done && done.log >= limitFrames && done.log !== lastLog) parentPort.postMessage({ behind: true });
    lastLog = done ? done.log : 0;
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
};
const timer = setInterval(pass, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  pass();
  database.close();
  parentPort.postMessage({ closed: true });
});
`;

export interface Checkpointer {
  /** Checkpoints once more and closes the worker's connection. */
  stop(): Promise<void>;
}

/**
 * Copies SQLite's write-ahead log back into the database file from a thread of its own. Left to SQLite,
 * the commit that crosses the log's size limit does that copy (and an fsync) itself, on the event loop:
 * a stall of several milliseconds for every message waiting behind it, every few thousand messages. A
 * PASSIVE checkpoint on another connection never blocks the writer, so the main connection's automatic
 * one is switched off while the worker runs, and switched back on if the worker fails.
 *
 * The log starts over only when a write begins with every frame of it copied. Under writes that never
 * pause (a thousand messages a second) frames keep coming while the thread copies, so that never happens
 * and the log grew by some 25 MB a second for as long as the load lasted. Once it holds more than
 * `walLimitBytes` after a pass, the thread asks for `catchUp`: the writer's own connection copies the few
 * frames written since, and its next write starts the log over.
 */
export function startCheckpointer(
  file: string,
  options: {
    everyMs: number;
    walLimitBytes: number;
    onFailure: (error: Error) => void;
    autoCheckpoint: (on: boolean) => void;
    catchUp: () => void;
  },
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(PROGRAM, {
    eval: true,
    workerData: { driver, file, everyMs: options.everyMs, walLimitBytes: options.walLimitBytes },
  });
  worker.unref();
  let stopping = false;
  const fail = (error: Error) => {
    if (stopping) return;
    options.autoCheckpoint(true);
    options.onFailure(error);
  };
  worker.on('message', (message: { error?: string; behind?: true }) => {
    if (message.error) options.onFailure(new Error(`checkpoint failed: ${message.error}`));
    if (message.behind && !stopping) options.catchUp();
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the checkpoint thread ended (${code})`)));
  options.autoCheckpoint(false);
  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      const closed = new Promise<void>((resolve) => {
        worker.on('message', (message: { closed?: boolean }) => message.closed && resolve());
        worker.once('exit', () => resolve());
      });
      worker.postMessage('stop');
      await closed;
      await worker.terminate();
    },
  };
}
