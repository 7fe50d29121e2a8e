// Socket-count benchmark: N visitors (init + socket each) held open with heartbeats for D seconds,
// spread over client processes (each process has its own open-file limit); reports the server's RSS
// and how many sockets it closed.
//
//   node bench/sockets.mjs --visitors 19000 --clients 2 --seconds 30
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startServer } from './server.mjs';

const arg = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const VISITORS = arg('visitors', 19000);
const SECONDS = arg('seconds', 30);
const CLIENTS = arg('clients', 2);
const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** Client mode: open `count` visitor sockets against `url`, heartbeat them, report, then wait to be told to stop. */
async function client(url, count) {
  const sockets = [];
  let closed = 0;
  // Heartbeats start with the first socket: the server closes any socket silent for 15 s.
  setInterval(() => {
    for (const socket of sockets) socket.send('Y');
  }, 5000);
  for (let batch = 0; batch < count; batch += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - batch) }, async (_, offset) => {
        const response = await fetch(`${url}/api/visitor/init`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url: `https://shop.example/p/${batch + offset}` }),
        });
        const { data } = await response.json();
        const socket = new WebSocket(`${url.replace('http', 'ws')}/ws/visitor?YQToken=${data.YQToken}`);
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

if (process.argv[2] === '--client') {
  await client(process.argv[3], Number(process.argv[4]));
} else {
  await main();
}

async function main() {
  const { child, url, stop } = await startServer();
  const idle = rssOf(child.pid);

  const started = performance.now();
  const clients = Array.from({ length: CLIENTS }, () =>
    fork(fileURLToPath(import.meta.url), ['--client', url, String(Math.ceil(VISITORS / CLIENTS))], { stdio: 'inherit' }),
  );
  const counts = await Promise.all(
    clients.map((worker) => new Promise((resolve) => worker.once('message', (message) => resolve(message.opened)))),
  );
  const total = counts.reduce((sum, count) => sum + count, 0);
  const opened = (performance.now() - started) / 1000;
  let peak = rssOf(child.pid);
  const until = Date.now() + SECONDS * 1000;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    peak = Math.max(peak, rssOf(child.pid));
  }
  const closed = await Promise.all(
    clients.map(
      (worker) =>
        new Promise((resolve) => {
          worker.once('message', (message) => resolve(message.closed));
          worker.send('stop');
        }),
    ),
  );
  console.log(
    `${total} visitor sockets opened in ${opened.toFixed(1)} s over ${CLIENTS} client processes, held ${SECONDS} s with heartbeats`,
  );
  console.log(
    `server RSS: idle ${mib(idle)}, peak ${mib(peak)}; sockets closed by the server: ${closed.reduce((sum, count) => sum + count, 0)}`,
  );
  await stop();
}
