// Load benchmark: N visitor sockets, M agents, R visitor messages per second for D seconds, through the
// real server (socket send 8100, or HTTP with --via http → stored with seq → routed → agent socket),
// beside a bare `ws` relay measured in the same run. Prints p50/p99 visitor → agent latency, the
// send → acknowledgement latency, late and lost messages, and the server's RSS.
//
//   node bench/chat-load.mjs --visitors 1000 --agents 10 --rate 1000 --seconds 20 [--via http] [--json]
//
// The server is the built one (`node scripts/build.mjs` first), on a fresh SQLite DATA_DIR unless
// DATABASE_URL is set. Everything runs on this machine, on loopback only. To keep the generator off the
// server's core: BENCH_SERVER_CPUS=0 taskset -c 1 node bench/chat-load.mjs …
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import WebSocket from 'ws';
import { ADMIN_PASSWORD, startServer } from './server.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const VISITORS = arg('visitors', 1000);
const AGENTS = arg('agents', 10);
const RATE = arg('rate', 1000);
const SECONDS = arg('seconds', 20);
const VIA = process.argv.includes('--via') ? process.argv[process.argv.indexOf('--via') + 1] : 'socket';
const JSON_OUT = process.argv.includes('--json');
/** A message delivered later than this after it was sent counts as late (delivered, but not in time). */
const LATE_MS = 1000;
/** How long stragglers are waited for once the load has ended, before the rest count as lost. */
const DRAIN_MS = 30_000;

const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const rssOf = (pid) => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
};
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Milliseconds on a clock shared by the sending thread and the receiving one. */
const now = () => performance.timeOrigin + performance.now();

async function api(url, path, body, token) {
  const response = await fetch(url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (json.code !== 200) throw new Error(`${path}: ${json.msg}`);
  return json.data;
}

const open = (url) =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });

/** Runs the sending thread (bench/sender.mjs) and waits for its figures. */
async function drive(options, settled = async () => {}) {
  const worker = new Worker(new URL('./sender.mjs', import.meta.url), {
    workerData: { ...options, rate: RATE, seconds: SECONDS, drainMs: DRAIN_MS },
  });
  await new Promise((resolve) => worker.once('message', resolve));
  await settled();
  worker.postMessage('go');
  const result = await new Promise((resolve) => worker.once('message', resolve));
  await worker.terminate();
  return result;
}

async function benchParley() {
  const server = await startServer();
  const { url, child } = server;
  const ws = url.replace('http', 'ws');
  const admin = (await api(url, '/api/login', { username: 'admin', password: ADMIN_PASSWORD })).token;
  const roles = await api(url, '/api/role/getList', undefined, admin);
  const agentRole = roles.list.find((role) => role.name === 'Agent').id;
  await api(url, '/api/index/state', { state: '1' }, admin);
  const latencies = [];
  const delivered = new Set();
  const agentSockets = [];
  /** Visitor sockets the server has finished taking in (each tells its agent: 8002). */
  let online = 0;
  for (let index = 0; index < AGENTS; index += 1) {
    const username = `bench-agent-${index}`;
    await api(
      url,
      '/api/service/doEdit',
      { username, nickname: username, password: 'bench-pass-1', roleId: agentRole, maxChats: 100 },
      admin,
    );
    const token = (await api(url, '/api/login', { username, password: 'bench-pass-1' })).token;
    const socket = await open(`${ws}/ws/agent?token=${token}`);
    socket.on('message', (raw) => {
      const text = raw.toString();
      if (text === 'Y') return;
      const frame = JSON.parse(text);
      if (frame.code === '8002') online += 1;
      if (frame.code === '8006' && frame.recipient) {
        const [, at, index] = frame.data.msg.split(' ');
        if (index === undefined || delivered.has(index)) return;
        delivered.add(index);
        latencies.push(now() - Number(at));
      }
    });
    agentSockets.push(socket);
  }
  const visitors = [];
  for (let index = 0; index < VISITORS; index += 1) {
    const { YQToken } = await api(url, '/api/visitor/init', { url: `https://shop.example/p/${index}` });
    // Over the socket, the sending thread holds the visitors' sockets itself.
    const socket = VIA === 'http' ? await open(`${ws}/ws/visitor?YQToken=${YQToken}`) : null;
    visitors.push({ token: YQToken, socket });
  }
  const heartbeat = setInterval(() => {
    for (const { socket } of visitors) socket?.send('Y');
    for (const socket of agentSockets) socket.send('Y');
  }, 5000);
  // Open every conversation first, so the timed run measures the steady message path.
  await Promise.all(
    visitors.map((visitor, index) => api(url, '/api/visitor/message', { YQToken: visitor.token, msg: 'hello 0', onlyID: `open-${index}` })),
  );
  latencies.length = 0;
  delivered.clear();
  const rssBefore = rssOf(child.pid);
  // The sending thread opens the visitors' sockets first; the clock starts once the server has taken
  // them all in, so their arrival (a write each) is not measured as the first messages' latency.
  const allOnline = async () => {
    const until = Date.now() + DRAIN_MS;
    while (VIA !== 'http' && online < VISITORS && Date.now() < until) await sleep(20);
  };
  const result = await drive(
    { mode: VIA === 'http' ? 'http' : 'socket', target: VIA === 'http' ? url : ws, tokens: visitors.map((visitor) => visitor.token) },
    allOnline,
  );
  // Stragglers: every acknowledged message is waited for (up to DRAIN_MS) before anything counts as lost.
  const drainUntil = Date.now() + DRAIN_MS;
  while (delivered.size < result.acknowledged && Date.now() < drainUntil) await sleep(20);
  const rss = rssOf(child.pid);
  clearInterval(heartbeat);
  for (const { socket } of visitors) socket?.terminate();
  for (const socket of agentSockets) socket.terminate();
  await server.stop();
  return {
    name: `parley (${VIA === 'http' ? 'HTTP' : 'socket'} send → ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'} → routed push)`,
    sent: RATE * SECONDS,
    received: delivered.size,
    acknowledged: result.acknowledged,
    unanswered: result.unanswered,
    refused: result.refused,
    failures: result.failures,
    late: latencies.filter((latency) => latency > LATE_MS).length,
    lost: Math.max(0, result.acknowledged - delivered.size),
    elapsed: result.elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ackP50: percentile(result.ackLatencies, 50),
    ackP99: percentile(result.ackLatencies, 99),
    rss,
    rssBefore,
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
  const latencies = [];
  const agents = [];
  for (let index = 0; index < AGENTS; index += 1) {
    const socket = await open(`ws://127.0.0.1:${port}/agent`);
    socket.on('message', (raw) => latencies.push(now() - Number(raw.toString().split(' ')[1])));
    agents.push(socket);
  }
  const { elapsed } = await drive({ mode: 'ws', target: `ws://127.0.0.1:${port}`, visitors: VISITORS });
  const drainUntil = Date.now() + DRAIN_MS;
  while (latencies.length < RATE * SECONDS && Date.now() < drainUntil) await sleep(20);
  const rss = rssOf(child.pid);
  for (const socket of agents) socket.terminate();
  child.kill('SIGTERM');
  return {
    name: 'bare ws relay (nothing stored)',
    sent: RATE * SECONDS,
    received: latencies.length,
    failures: 0,
    late: latencies.filter((latency) => latency > LATE_MS).length,
    lost: RATE * SECONDS - latencies.length,
    elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    rss,
  };
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadBefore = load();
if (!JSON_OUT) console.log(`visitors ${VISITORS}, agents ${AGENTS}, ${RATE} messages/s for ${SECONDS} s; load ${loadBefore}`);
const relay = await benchRelay();
const parley = await benchParley();
const ratio = parley.p99 / relay.p99;
if (JSON_OUT) {
  console.log(JSON.stringify({ visitors: VISITORS, agents: AGENTS, rate: RATE, seconds: SECONDS, load: loadBefore, relay, parley, ratio }));
} else {
  for (const result of [relay, parley]) {
    const acks = result.ackP99 === undefined ? '' : ` | ack p50 ${result.ackP50.toFixed(2)} ms p99 ${result.ackP99.toFixed(2)} ms`;
    const refused = result.refused && Object.keys(result.refused).length > 0 ? ` refused ${JSON.stringify(result.refused)}` : '';
    console.log(
      `${result.name.padEnd(48)} sent ${result.sent} received ${result.received} late ${result.late} lost ${result.lost}${result.unanswered ? ` unanswered ${result.unanswered}` : ''}${refused} failed ${result.failures} in ${result.elapsed.toFixed(1)} s | p50 ${result.p50.toFixed(2)} ms p99 ${result.p99.toFixed(2)} ms${acks} | RSS ${mb(result.rss)}`,
    );
  }
  console.log(`p99 ratio parley / relay: ${ratio.toFixed(2)}; load after ${load()}`);
}
