// The sending side of chat-load.mjs, in a thread of its own so that sending never delays the clock of
// the receiving side. Timestamps are wall-clock milliseconds, comparable across threads.
//
// Modes: `ws` (the bare relay: a plain text frame), `http` (POST /api/visitor/message), `socket` (8100
// on the visitor's own socket, answered 8101 once stored). Each message reads `m <sent at> <index>`, so
// the receiver can tell the latency and count each message once.
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const { mode, target, tokens, visitors, rate, seconds, drainMs = 30_000 } = workerData;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const open = (url) =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });

let failures = 0;
/** Sends acknowledged (HTTP 200 or 8101), and the time from each send to its acknowledgement. */
let acknowledged = 0;
const ackLatencies = [];
/** Refusals by status (8102 or an HTTP error), and sends cut off (a socket closed, a request failed). */
const refused = {};
const sentAt = new Map();

let sockets = [];
if (mode === 'ws') sockets = await Promise.all(Array.from({ length: visitors }, () => open(`${target}/visitor`)));
if (mode === 'socket') {
  sockets = await Promise.all(tokens.map((token) => open(`${target}/ws/visitor?YQToken=${token}`)));
  for (const socket of sockets) {
    socket.on('message', (raw) => {
      const text = raw.toString();
      if (text === 'Y') return;
      const frame = JSON.parse(text);
      if (frame.code !== '8101' && frame.code !== '8102') return;
      const started = sentAt.get(frame.data.onlyID);
      if (started === undefined) return;
      sentAt.delete(frame.data.onlyID);
      if (frame.code === '8101') {
        acknowledged += 1;
        ackLatencies.push(now() - started);
      } else {
        refused[frame.data.status] = (refused[frame.data.status] ?? 0) + 1;
      }
    });
    socket.on('close', () => {
      failures += 1;
    });
  }
}
// Each socket's heartbeat every 5 s, spread over those 5 s as real clients' are (each page opened at its
// own moment): sent all at once, a thousand heartbeats and their echoes made a burst every 5 s that the
// messages queued behind.
const HEARTBEAT_SLICES = 100;
let heartbeatSlice = 0;
const heartbeat = setInterval(() => {
  for (let index = heartbeatSlice; index < sockets.length; index += HEARTBEAT_SLICES) {
    const socket = sockets[index];
    if (socket.readyState === WebSocket.OPEN) socket.send('Y');
  }
  heartbeatSlice = (heartbeatSlice + 1) % HEARTBEAT_SLICES;
}, 5000 / HEARTBEAT_SLICES);

function send(index) {
  const msg = `m ${now()} ${index}`;
  if (mode === 'ws') {
    sockets[index % sockets.length].send(msg);
    return Promise.resolve();
  }
  const onlyID = `b-${index}`;
  if (mode === 'socket') {
    sentAt.set(onlyID, now());
    sockets[index % sockets.length].send(JSON.stringify({ code: '8100', data: { msg, onlyID } }));
    return Promise.resolve();
  }
  const YQToken = tokens[index % tokens.length];
  const started = now();
  return fetch(`${target}/api/visitor/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ YQToken, msg, onlyID }),
  })
    .then((response) => response.json())
    .then((json) => {
      if (json.code === 200) {
        acknowledged += 1;
        ackLatencies.push(now() - started);
      } else refused[json.code] = (refused[json.code] ?? 0) + 1;
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
// The load has ended when the last message went out; what is still unanswered is waited for (up to
// drainMs) rather than counted as lost.
const elapsed = (performance.now() - started) / 1000;
const loadEndedAt = now();
await Promise.allSettled(inflight);
const drainUntil = performance.now() + drainMs;
while (mode === 'socket' && sentAt.size > 0 && performance.now() < drainUntil) await sleep(20);
clearInterval(heartbeat);
for (const socket of sockets) socket.terminate();
parentPort.postMessage({ failures, elapsed, loadEndedAt, acknowledged, unanswered: sentAt.size, refused, ackLatencies });
