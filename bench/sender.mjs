// The sending side of chat-load.mjs, in a thread of its own so that sending never delays the clock of
// the receiving side. Timestamps are wall-clock milliseconds, comparable across threads.
//
// Modes: `ws` (the bare relay: a plain text frame), `http` (POST /api/visitor/message), `socket` (8100
// on the visitor's own socket, answered 8101 once stored). Each message reads `m <sent at> <index>`, so
// the receiver can tell the latency and count each message once.
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { collectGarbage } from './collect-garbage.mjs';

const { mode, target, tokens, visitors, rate, seconds, warmup = 0, drainMs = 30_000 } = workerData;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const open = (url) =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });

let failures = 0;
/** Sockets closed during the run, by close code (the server's reason: 4000s are Parley's own, CONTRACT §6). */
const closeCodes = {};
/** Sends acknowledged (HTTP 200 or 8101), and the time from each send to its acknowledgement. */
let acknowledged = 0;
const ackLatencies = [];
/** Refusals by status (8102 or an HTTP error), and sends cut off (a socket closed, a request failed). */
const refused = {};
const sentAt = new Map();

let sockets = [];
/** Sockets the server has finished taking in: the last thing it does is tell the visitor its agent (2000). */
const greeted = new Set();
if (mode === 'ws') sockets = await Promise.all(Array.from({ length: visitors }, () => open(`${target}/visitor`)));
if (mode === 'socket') {
  sockets = await Promise.all(tokens.map((token) => open(`${target}/ws/visitor?YQToken=${token}`)));
  for (const socket of sockets) {
    socket.on('message', (raw) => {
      const text = raw.toString();
      if (text === 'Y') return;
      const frame = JSON.parse(text);
      if (frame.code === '2000') greeted.add(socket);
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
    socket.on('close', (code) => {
      failures += 1;
      closeCodes[code] = (closeCodes[code] ?? 0) + 1;
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

/** A measured message reads `m <sent at> <index>`; a warm-up one `w …`, which receivers do not count. */
function send(index, kind = 'm') {
  const msg = `${kind} ${now()} ${index}`;
  if (mode === 'ws') {
    sockets[index % sockets.length].send(msg);
    return Promise.resolve();
  }
  const onlyID = `${kind}-${index}`;
  if (mode === 'socket') {
    if (kind === 'm') sentAt.set(onlyID, now());
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
      if (kind !== 'm') return;
      if (json.code === 200) {
        acknowledged += 1;
        ackLatencies.push(now() - started);
      } else refused[json.code] = (refused[json.code] ?? 0) + 1;
    })
    .catch(() => {
      failures += 1;
    });
}

// The clock starts once the server has taken every socket in (each is a write, a lookup of its agent
// and a frame): before, the first messages of the run queued behind that work and measured it.
const greetedUntil = performance.now() + drainMs;
while (mode === 'socket' && greeted.size < sockets.length && performance.now() < greetedUntil) await sleep(20);
// As the receiving thread does: the setup's garbage collected before the clock starts, not during the run.
collectGarbage();
parentPort.postMessage({ ready: true });
await new Promise((resolve) => parentPort.once('message', resolve));
// The warm-up: the same stream for `warmup` seconds before the measured one, with no pause between them,
// so that what is measured is the steady state, not a process compiling its hot path or settling its heap.
const warmupTotal = Math.round(rate * warmup);
const warmupStarted = performance.now();
for (let index = 0; index < warmupTotal; index += 1) {
  const wait = warmupStarted + (index * 1000) / rate - performance.now();
  if (wait > 1) await sleep(wait);
  send(index, 'w');
}
const total = rate * seconds;
const started = warmupStarted + (warmupTotal * 1000) / rate;
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
parentPort.postMessage({ failures, closeCodes, elapsed, loadEndedAt, acknowledged, unanswered: sentAt.size, refused, ackLatencies });
