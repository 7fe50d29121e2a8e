// The sending side of chat-load.mjs, in a thread of its own so that sending never delays the clock of
// the receiving side. Timestamps are wall-clock milliseconds, comparable across threads.
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const { mode, target, tokens, visitors, rate, seconds } = workerData;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let sockets = [];
if (mode === 'ws') {
  sockets = await Promise.all(
    Array.from(
      { length: visitors },
      () =>
        new Promise((resolve, reject) => {
          const ws = new WebSocket(`${target}/visitor`);
          ws.once('open', () => resolve(ws));
          ws.once('error', reject);
        }),
    ),
  );
}

let failures = 0;
function send(index) {
  if (mode === 'ws') {
    sockets[index % sockets.length].send(`m ${now()}`);
    return Promise.resolve();
  }
  const YQToken = tokens[index % tokens.length];
  return fetch(`${target}/api/visitor/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ YQToken, msg: `m ${now()}`, onlyID: `b-${index}` }),
  })
    .then((response) => response.json())
    .then((json) => {
      if (json.code !== 200) failures += 1;
    })
    .catch(() => {
      failures += 1;
    });
}

parentPort.postMessage({ ready: true });
await new Promise((resolve) => parentPort.once('message', resolve));
const total = rate * seconds;
const started = performance.now();
const inflight = [];
for (let index = 0; index < total; index += 1) {
  const wait = started + (index * 1000) / rate - performance.now();
  if (wait > 1) await sleep(wait);
  inflight.push(send(index));
}
await Promise.allSettled(inflight);
const elapsed = (performance.now() - started) / 1000;
for (const socket of sockets) socket.terminate();
parentPort.postMessage({ failures, elapsed });
