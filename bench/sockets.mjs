// Socket-count benchmark: N visitors (init + socket each) held open with heartbeats for D seconds,
// spread over client processes (each process has its own open-file limit); reports the server's RSS,
// how many sockets it closed, and what one idle socket costs.
//
//   node bench/sockets.mjs --visitors 19000 --clients 2 --seconds 30
//   DATABASE_URL=… REDIS_URL=… node bench/sockets.mjs --visitors 18000 --processes 2   through nginx
//   … --open-rate 300   the sockets opened at 300 a second in all (paced), rather than 100 at a time per client
//
// The cost of a socket is measured apart from the visitor behind it: every visitor is made first (HTTP
// init), the server's heap is then collected in full through its inspector and its RSS and heap read;
// the sockets are opened and held, collected and read again. The difference over N is what a socket
// itself holds (its visitor's rows and the inits' garbage are on both sides). With `--processes P` the
// sockets go through nginx to P servers (bench/cluster.mjs, `--nginx-workers`, 3 by default): the RSS is the servers'
// together, and the cost of a socket is not taken apart.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { option } from './client.mjs';
import { startCluster } from './cluster.mjs';
import { rssBytes } from './proc.mjs';
import { startServer } from './server.mjs';

const VISITORS = Number(option('visitors', 19000));
const SECONDS = Number(option('seconds', 30));
const CLIENTS = Number(option('clients', 2));
const INSPECT_PORT = Number(option('inspect-port', 9339));
const PROCESSES = Number(option('processes', 0));
/** nginx's workers with `--processes`: each holds two files a socket, at most 16,000 connections (8,000 sockets). */
const NGINX_WORKERS = Number(option('nginx-workers', 3));
/** Sockets opened a second across the clients (0: each client opens 100 at a time, as fast as they open). */
const OPEN_RATE = Number(option('open-rate', 0));
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/**
 * Client mode: make `count` visitors, then (when told) open and heartbeat a socket each, report, and wait to
 * be told to stop. The sockets leave from `localAddress`, a loopback address of this client's own: one source
 * address has about 28,000 ports towards one server address, fewer than 100,000 sockets need.
 */
async function client(url, count, localAddress, rate) {
  const tokens = [];
  let retried = 0;
  for (let batch = 0; batch < count; batch += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - batch) }, async (_, offset) => {
        // A server that answers 503 (its database busy: thousands of inits at once on shared cores) is
        // asked again after a pause, as the widget does; the retries are counted and reported.
        for (let attempt = 0; ; attempt += 1) {
          const response = await fetch(`${url}/api/visitor/init`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ url: `https://shop.example/p/${batch + offset}` }),
          });
          const answer = await response.json();
          if (answer.data) {
            tokens.push(answer.data.YQToken);
            break;
          }
          if (response.status !== 503 || attempt >= 20)
            throw new Error(`visitor init answered ${response.status}: ${JSON.stringify(answer)}`);
          retried += 1;
          await new Promise((resolve) => setTimeout(resolve, 250 * (attempt + 1)));
        }
      }),
    );
  }
  process.send({ made: tokens.length, retried });
  await new Promise((resolve) => process.once('message', resolve));
  const sockets = [];
  let closed = 0;
  // Heartbeats start with the first socket: the server closes any socket silent for 15 s.
  setInterval(() => {
    for (const socket of sockets) socket.send('Y');
  }, 5000);
  // Paced: a tenth of a second's share at a time, each step when it is due.
  const step = rate > 0 ? Math.max(1, Math.round(rate / 10)) : 100;
  const began = Date.now();
  let told = Date.now();
  for (let batch = 0; batch < tokens.length; batch += step) {
    const early = rate > 0 ? began + (batch / rate) * 1000 - Date.now() : 0;
    if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
    if (Date.now() - told >= 10_000) {
      told = Date.now();
      process.send({ progress: sockets.length, closedSoFar: closed });
    }
    await Promise.all(
      tokens.slice(batch, batch + step).map(async (token) => {
        const socket = new WebSocket(`${url.replace('http', 'ws')}/ws/visitor?YQToken=${token}`, { localAddress });
        await new Promise((resolve, reject) => {
          socket.once('open', resolve);
          socket.once('error', reject);
        });
        socket.on('close', () => {
          closed += 1;
        });
        sockets.push(socket);
      }),
    );
  }
  process.send({ opened: sockets.length });
  process.on('message', () => {
    process.send({ closed });
    process.exit(0);
  });
}

/** The server's inspector: a full collection, then its heap in use. */
async function inspector(port) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let id = 0;
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const mine = ++id;
      const listener = (raw) => {
        const answer = JSON.parse(raw.toString());
        if (answer.id !== mine) return;
        socket.off('message', listener);
        if (answer.error) reject(new Error(answer.error.message));
        else resolve(answer.result);
      };
      socket.on('message', listener);
      socket.send(JSON.stringify({ id: mine, method, params }));
    });
  return {
    /** Collects twice (weak maps and finalizers let go on the second) and answers the heap in use. */
    async collected() {
      await call('HeapProfiler.collectGarbage');
      await call('HeapProfiler.collectGarbage');
      const { result } = await call('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true });
      return result.value;
    },
    close: () => socket.close(),
  };
}

if (process.argv[2] === '--client') {
  await client(process.argv[3], Number(process.argv[4]), process.argv[5], Number(process.argv[6]));
} else {
  await main();
}

async function main() {
  const alone = PROCESSES === 0;
  if (alone)
    process.env.BENCH_SERVER_ARGS = [process.env.BENCH_SERVER_ARGS, `--inspect=127.0.0.1:${INSPECT_PORT}`].filter(Boolean).join(' ');
  const {
    child,
    pids = [child.pid],
    url,
    stop,
  } = alone ? await startServer() : await startCluster(PROCESSES, {}, { nginxWorkers: NGINX_WORKERS });
  const rss = () => pids.reduce((sum, pid) => sum + rssBytes(pid), 0);
  const server = alone ? await inspector(INSPECT_PORT) : { collected: async () => Number.NaN, close() {} };
  const idle = rss();

  const clients = Array.from({ length: CLIENTS }, (_, index) =>
    fork(
      fileURLToPath(import.meta.url),
      ['--client', url, String(Math.ceil(VISITORS / CLIENTS)), `127.0.0.${index + 2}`, String(OPEN_RATE / CLIENTS)],
      {
        stdio: 'inherit',
      },
    ),
  );
  const next = (worker, key) =>
    new Promise((resolve) => {
      const listener = (message) => {
        if (!(key in message)) return;
        worker.off('message', listener);
        resolve(message[key]);
      };
      worker.on('message', listener);
    });
  // Every client has made its visitors once it reports their inits' retries.
  const retried = (await Promise.all(clients.map((worker) => next(worker, 'retried')))).reduce((sum, count) => sum + count, 0);
  const beforeHeap = await server.collected();
  const before = rss();

  const started = performance.now();
  const opening = clients.map((worker) => next(worker, 'opened'));
  // Where the openings are, every 10 s (a run that stalls shows where).
  const progress = clients.map(() => ({ open: 0, closed: 0 }));
  for (const [index, worker] of clients.entries())
    worker.on('message', (message) => {
      if ('progress' in message) progress[index] = { open: message.progress, closed: message.closedSoFar };
    });
  const telling = setInterval(() => {
    const open = progress.reduce((sum, each) => sum + each.open, 0);
    const lost = progress.reduce((sum, each) => sum + each.closed, 0);
    console.log(`${((performance.now() - started) / 1000).toFixed(0)} s: ${open} sockets open, ${lost} closed, server RSS ${mib(rss())}`);
  }, 10_000);
  for (const worker of clients) worker.send('open');
  const total = (await Promise.all(opening)).reduce((sum, count) => sum + count, 0);
  clearInterval(telling);
  const opened = (performance.now() - started) / 1000;
  let peak = rss();
  const until = Date.now() + SECONDS * 1000;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    peak = Math.max(peak, rss());
  }
  const afterHeap = await server.collected();
  const after = rss();
  const closed = await Promise.all(
    clients.map((worker) => {
      const answer = next(worker, 'closed');
      worker.send('stop');
      return answer;
    }),
  );
  server.close();
  console.log(
    `${total} visitor sockets opened in ${opened.toFixed(1)} s over ${CLIENTS} client processes, held ${SECONDS} s with heartbeats${alone ? '' : `, through nginx to ${PROCESSES} servers`}; visitor inits answered 503 and asked again: ${retried}`,
  );
  console.log(
    `server RSS${alone ? '' : ` (${PROCESSES} together)`}: idle ${mib(idle)}, ${mib(before)} with the visitors made, peak ${mib(peak)}, ${mib(after)} at the end; sockets closed by the server: ${closed.reduce((sum, count) => sum + count, 0)}`,
  );
  if (!alone) {
    await stop();
    return;
  }
  console.log(
    `a socket, after full collections: ${kb((after - before) / total)} of RSS, ${kb((afterHeap - beforeHeap) / total)} of JavaScript heap (RSS ${mib(before)} → ${mib(after)}, heap ${mib(beforeHeap)} → ${mib(afterHeap)})`,
  );
  await stop();
}
