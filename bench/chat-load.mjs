// Load benchmark: N visitor sockets, M agents, R visitor messages per second for D seconds, through the
// real server (socket send 8100, or HTTP with --via http → stored with seq → routed → agent socket),
// beside a bare `ws` relay measured in the same run. Prints p50/p99 visitor → agent latency, the
// send → acknowledgement latency, late and lost messages, and the server's RSS.
//
//   node bench/chat-load.mjs --visitors 1000 --agents 10 --rate 1000 --seconds 20 [--warmup 2] [--via http] [--json]
//                            [--webhooks K [--webhook-workers W]]
//
// The server is the built one (`node scripts/build.mjs` first), on a fresh SQLite DATA_DIR unless
// DATABASE_URL is set. Everything runs on this machine, on loopback only. To keep the generator off the
// server's core: BENCH_SERVER_CPUS=0 taskset -c 1 node bench/chat-load.mjs …
// `--webhooks K` subscribes K webhooks to `message.created`, all on one receiver in a process of its own
// (bench/receiver.mjs), and reports how many deliveries it had by the end and when the last came;
// `BENCH_RECEIVER=nginx` has Debian's nginx receive them instead of a Node server (far less CPU on the
// cores the server shares), `BENCH_RECEIVER_NICE=19` runs the receiver at the lowest priority (`idle`: SCHED_IDLE).
// `--webhook-workers W` (PostgreSQL) has W worker processes send them (`WEBHOOK_DELIVERY=worker`), not the server.
// `--processes P` (PostgreSQL and Redis: DATABASE_URL, REDIS_URL) runs P servers behind nginx (bench/cluster.mjs)
// and sends everything through it; the RSS is then the servers' together.
// `--data-dir DIR` runs on an existing SQLite DATA_DIR (made with ADMIN_PASSWORD=bench-pass-1), which it keeps.
// `--trace FILE` writes one line per delivered message, `<sent at, epoch ms>,<latency ms>`, to find when
// in a run the slow ones were.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { api, openSocket } from './client.mjs';
import { startCluster } from './cluster.mjs';
import { collectGarbage } from './collect-garbage.mjs';
import { cpuSeconds, rssBytes } from './proc.mjs';
import { startReceiver } from './receiver.mjs';
import { ADMIN_PASSWORD, startServer, startWebhookWorker } from './server.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const VISITORS = arg('visitors', 1000);
const AGENTS = arg('agents', 10);
const RATE = arg('rate', 1000);
const SECONDS = arg('seconds', 20);
/** Seconds of the same stream sent before the measured ones, not counted (see sender.mjs). */
const WARMUP = arg('warmup', 2);
const VIA = process.argv.includes('--via') ? process.argv[process.argv.indexOf('--via') + 1] : 'socket';
const JSON_OUT = process.argv.includes('--json');
const WEBHOOKS = arg('webhooks', 0);
const WEBHOOK_WORKERS = arg('webhook-workers', 0);
const PROCESSES = arg('processes', 0);
/** An existing SQLite DATA_DIR to run on (kept), e.g. a third-year database made by `npm run demo -- --scale 400`. */
const DATA_DIR = process.argv.includes('--data-dir') ? process.argv[process.argv.indexOf('--data-dir') + 1] : undefined;
const RUN = Date.now().toString(36);
if (DATA_DIR && (PROCESSES > 0 || process.env.DATABASE_URL))
  throw new Error('--data-dir is an existing SQLite DATA_DIR: it goes with neither --processes nor DATABASE_URL');
const TRACE = process.argv.includes('--trace') ? process.argv[process.argv.indexOf('--trace') + 1] : undefined;
/** A message delivered later than this after it was sent counts as late (delivered, but not in time). */
const LATE_MS = 1000;
/** How long stragglers are waited for once the load has ended, before the rest count as lost. */
const DRAIN_MS = 30_000;

const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Milliseconds on a clock shared by the sending thread and the receiving one. */
const now = () => performance.timeOrigin + performance.now();
/**
 * The messages of a run as they arrive, each counted once, in arrays allocated up front: a receiver that
 * kept a Set and an array of boxes grew its heap through the run into collections of 25-40 ms.
 */
class Deliveries {
  constructor(total) {
    this.sentAt = new Float64Array(total);
    this.latency = new Float64Array(total).fill(Number.NaN);
    this.count = 0;
  }

  record(index, sentAt) {
    if (!(index < this.latency.length) || !Number.isNaN(this.latency[index])) return;
    this.latency[index] = now() - sentAt;
    this.sentAt[index] = sentAt;
    this.count += 1;
  }

  arrived() {
    return this.latency.filter((latency) => !Number.isNaN(latency));
  }

  percentile(p) {
    return percentile(this.arrived(), p);
  }

  late() {
    return this.arrived().filter((latency) => latency > LATE_MS).length;
  }

  /** `<sent at, epoch ms>,<latency ms>` per delivered message, in send order. */
  write(file) {
    const lines = [];
    for (const [index, latency] of this.latency.entries()) if (!Number.isNaN(latency)) lines.push(`${this.sentAt[index]},${latency}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
  }
}

/** Runs the sending thread (bench/sender.mjs) and waits for its figures. */
async function drive(options) {
  const worker = new Worker(new URL('./sender.mjs', import.meta.url), {
    workerData: { ...options, rate: RATE, seconds: SECONDS, warmup: WARMUP, drainMs: DRAIN_MS },
  });
  worker.on('error', (error) => {
    console.error('sender failed:', error);
    process.exit(1);
  });
  // Ready: the thread has its sockets open, and the server has taken them all in.
  await new Promise((resolve) => worker.once('message', resolve));
  collectGarbage();
  worker.postMessage('go');
  const result = await new Promise((resolve) => worker.once('message', resolve));
  await worker.terminate();
  return result;
}

async function benchParley() {
  const receiver = WEBHOOKS > 0 ? await startReceiver() : undefined;
  const hookEnv = { OUTBOUND_ALLOW: '127.0.0.1', ...(WEBHOOK_WORKERS > 0 ? { WEBHOOK_DELIVERY: 'worker' } : {}) };
  const server =
    PROCESSES > 0
      ? await startCluster(PROCESSES, receiver ? hookEnv : {})
      : await startServer({ ...(DATA_DIR ? { dataDir: DATA_DIR } : {}), ...(receiver ? { env: hookEnv } : {}) });
  const serverRss = () => (server.pids ?? [server.child.pid]).reduce((sum, pid) => sum + rssBytes(pid), 0);
  const workers = [];
  for (let index = 0; index < WEBHOOK_WORKERS; index += 1) workers.push(await startWebhookWorker(server, hookEnv));
  const { url } = server;
  const ws = url.replace('http', 'ws');
  const admin = (await api(url, '/api/login', { username: 'admin', password: ADMIN_PASSWORD })).token;
  for (let index = 0; index < WEBHOOKS; index += 1)
    await api(url, '/api/webhook/doEdit', { url: `${receiver.url}/${index}`, events: ['message.created'], enabled: true }, admin);
  const roles = await api(url, '/api/role/getList', undefined, admin);
  const agentRole = roles.list.find((role) => role.name === 'Agent').id;
  await api(url, '/api/index/state', { state: '1' }, admin);
  const deliveries = new Deliveries(RATE * SECONDS);
  const agentSockets = [];
  /** Agents' sockets the server closed during the run, by close code: a message sent to one is lost here. */
  const agentCloseCodes = {};
  const visitors = [];
  // Every socket's heartbeat from the moment it opens: the server closes a socket silent for 15 s, and
  // making a thousand visitors on a slow database takes longer than that.
  const heartbeat = setInterval(() => {
    for (const { socket } of visitors) socket?.send('Y');
    for (const socket of agentSockets) socket.send('Y');
  }, 5000);
  for (let index = 0; index < AGENTS; index += 1) {
    // On a database of its own the agents are made anew for each run, under names of the run's.
    const username = `bench-agent-${index}${DATA_DIR ? `-${RUN}` : ''}`;
    await api(
      url,
      '/api/service/doEdit',
      { username, nickname: username, password: 'bench-pass-1', roleId: agentRole, maxChats: Math.ceil(VISITORS / AGENTS) },
      admin,
    );
    const token = (await api(url, '/api/login', { username, password: 'bench-pass-1' })).token;
    const socket = await openSocket(`${ws}/ws/agent?token=${token}`);
    socket.on('message', (raw) => {
      const text = raw.toString();
      // Read without parsing the whole frame: the receiver is the instrument, and the less it allocates
      // the less its own collections show up as the server's latency.
      if (!text.includes('"code":"8006"') || !text.includes('"recipient":"')) return;
      const sent = /"msg":"m ([\d.]+) (\d+)"/.exec(text);
      if (sent) deliveries.record(Number(sent[2]), Number(sent[1]));
    });
    socket.on('close', (code) => {
      agentCloseCodes[code] = (agentCloseCodes[code] ?? 0) + 1;
    });
    agentSockets.push(socket);
  }
  for (let index = 0; index < VISITORS; index += 1) {
    const { YQToken } = await api(url, '/api/visitor/init', { url: `https://shop.example/p/${index}` });
    // Over the socket, the sending thread holds the visitors' sockets itself.
    const socket = VIA === 'http' ? await openSocket(`${ws}/ws/visitor?YQToken=${YQToken}`) : null;
    visitors.push({ token: YQToken, socket });
  }
  // Open every conversation first, so the timed run measures the steady message path.
  await Promise.all(
    visitors.map((visitor, index) => api(url, '/api/visitor/message', { YQToken: visitor.token, msg: 'hello 0', onlyID: `open-${index}` })),
  );
  const rssBefore = serverRss();
  const serverCpu = () => (server.pids ?? [server.child.pid]).reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const cpuBefore = serverCpu();
  // Over the socket, the sending thread opens the visitors' sockets first, and starts the clock once the
  // server has taken them all in (sender.mjs), so that their arrival is not measured as latency.
  const result = await drive({
    mode: VIA === 'http' ? 'http' : 'socket',
    target: VIA === 'http' ? url : ws,
    tokens: visitors.map((visitor) => visitor.token),
  });
  const cpu = serverCpu() - cpuBefore;
  // Stragglers: every acknowledged message is waited for (up to DRAIN_MS) before anything counts as lost.
  const drainUntil = Date.now() + DRAIN_MS;
  while (deliveries.count < result.acknowledged && Date.now() < drainUntil) await sleep(20);
  const rss = serverRss();
  // Read before the bench closes the agents' sockets itself (below), which would count too.
  const agentsClosed = { ...agentCloseCodes };
  const endedAt = Date.now();
  const hooks = receiver ? await receiver.count() : undefined;
  receiver?.stop();
  if (TRACE) deliveries.write(TRACE);
  clearInterval(heartbeat);
  for (const { socket } of visitors) socket?.terminate();
  for (const socket of agentSockets) socket.terminate();
  for (const worker of workers) await worker.stop();
  await server.stop();
  return {
    name: `parley (${VIA === 'http' ? 'HTTP' : 'socket'} send → ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'} → routed push${PROCESSES > 0 ? `, ${PROCESSES} behind nginx` : ''})`,
    sent: RATE * SECONDS,
    received: deliveries.count,
    acknowledged: result.acknowledged,
    unanswered: result.unanswered,
    refused: result.refused,
    failures: result.failures,
    closeCodes: result.closeCodes,
    agentCloseCodes: agentsClosed,
    late: deliveries.late(),
    lost: Math.max(0, result.acknowledged - deliveries.count),
    elapsed: result.elapsed,
    p50: deliveries.percentile(50),
    p99: deliveries.percentile(99),
    ackP50: percentile(result.ackLatencies, 50),
    ackP99: percentile(result.ackLatencies, 99),
    rss,
    rssBefore,
    /** The server's CPU seconds over the load, its warm-up included (not the stragglers' wait). */
    cpu,
    // Every message of the run (warm-up and opening ones too) makes one delivery per webhook.
    webhooks: hooks && {
      count: WEBHOOKS,
      workers: WEBHOOK_WORKERS,
      delivered: hooks.received,
      duplicates: hooks.duplicates,
      lastBeforeEnd: endedAt - hooks.lastAt,
    },
  };
}

/** The floor: a `ws` server that relays each visitor frame to one agent socket, storing nothing. */
async function benchRelay() {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { WebSocketServer } from 'ws';
       const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
       const agents = [];
       server.on('connection', (socket, req) => {
         if (req.url.startsWith('/agent')) { agents.push(socket); return; }
         let turn = 0;
         socket.on('message', (raw) => { const text = raw.toString(); if (text === 'Y') return socket.send('Y');
           agents[(turn++) % agents.length]?.send(text); });
       });
       server.on('listening', () => console.log('port ' + server.address().port));`,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise((resolve) => child.stdout.on('data', (chunk) => resolve(Number(/port (\d+)/.exec(String(chunk))[1]))));
  const deliveries = new Deliveries(RATE * SECONDS);
  const agents = [];
  for (let index = 0; index < AGENTS; index += 1) {
    const socket = await openSocket(`ws://127.0.0.1:${port}/agent`);
    socket.on('message', (raw) => {
      const [kind, at, index] = raw.toString().split(' ');
      if (kind === 'm') deliveries.record(Number(index), Number(at));
    });
    agents.push(socket);
  }
  const { elapsed } = await drive({ mode: 'ws', target: `ws://127.0.0.1:${port}`, visitors: VISITORS });
  const drainUntil = Date.now() + DRAIN_MS;
  while (deliveries.count < RATE * SECONDS && Date.now() < drainUntil) await sleep(20);
  const rss = rssBytes(child.pid);
  for (const socket of agents) socket.terminate();
  child.kill('SIGTERM');
  return {
    name: 'bare ws relay (nothing stored)',
    sent: RATE * SECONDS,
    received: deliveries.count,
    failures: 0,
    late: deliveries.late(),
    lost: RATE * SECONDS - deliveries.count,
    elapsed,
    p50: deliveries.percentile(50),
    p99: deliveries.percentile(99),
    rss,
  };
}

// Each conversation must go to an agent (an agent takes at most 100): a queued visitor's messages reach
// no agent, and its socket is never told its agent, which the clock waits for.
if (VISITORS > AGENTS * 100)
  throw new Error(`--visitors ${VISITORS} needs at least ${Math.ceil(VISITORS / 100)} --agents (100 each at most)`);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadBefore = load();
if (!JSON_OUT)
  console.log(`visitors ${VISITORS}, agents ${AGENTS}, ${RATE} messages/s for ${SECONDS} s after ${WARMUP} s; load ${loadBefore}`);
// `--no-relay` measures Parley alone, for quick comparisons of the server with itself.
const relay = process.argv.includes('--no-relay') ? { p99: Number.NaN } : await benchRelay();
const parley = await benchParley();
const ratio = parley.p99 / relay.p99;
if (JSON_OUT) {
  console.log(
    JSON.stringify({
      visitors: VISITORS,
      agents: AGENTS,
      rate: RATE,
      seconds: SECONDS,
      warmup: WARMUP,
      load: loadBefore,
      relay,
      parley,
      ratio,
    }),
  );
} else {
  for (const result of Number.isNaN(relay.p99) ? [parley] : [relay, parley]) {
    const acks = result.ackP99 === undefined ? '' : ` | ack p50 ${result.ackP50.toFixed(2)} ms p99 ${result.ackP99.toFixed(2)} ms`;
    const refused = result.refused && Object.keys(result.refused).length > 0 ? ` refused ${JSON.stringify(result.refused)}` : '';
    const hooks = result.webhooks
      ? ` | ${result.webhooks.count} webhooks${result.webhooks.workers ? ` sent by ${result.webhooks.workers} worker processes` : ''}: ${result.webhooks.delivered} delivered by the end (${result.webhooks.duplicates} twice)`
      : '';
    console.log(
      `${result.name.padEnd(48)} sent ${result.sent} received ${result.received} late ${result.late} lost ${result.lost}${result.unanswered ? ` unanswered ${result.unanswered}` : ''}${refused} failed ${result.failures}${result.failures > 0 && result.closeCodes ? ` (closed ${JSON.stringify(result.closeCodes)})` : ''}${result.agentCloseCodes && Object.keys(result.agentCloseCodes).length > 0 ? ` agents closed ${JSON.stringify(result.agentCloseCodes)}` : ''} in ${result.elapsed.toFixed(1)} s | p50 ${result.p50.toFixed(2)} ms p99 ${result.p99.toFixed(2)} ms${acks} | RSS ${mb(result.rss)}${result.cpu === undefined ? '' : `, server CPU ${result.cpu.toFixed(1)} s`}${hooks}`,
    );
  }
  console.log(`p99 ratio parley / relay: ${ratio.toFixed(2)}; load after ${load()}`);
}
