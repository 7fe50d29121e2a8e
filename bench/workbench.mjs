// The workbench of a busy hour: A agents online and V visitors talking or waiting, then each agent's
// workbench loaded as the console loads it (its index, its visitors, their labels and the colleagues to
// transfer to, side by side), several rounds; prints p50 / p95 of the whole load, per agent and for the
// administrator, who sees every visitor.
//
//   node bench/workbench.mjs [--agents 50] [--visitors 5000] [--max-chats 60] [--rounds 5] [--json]
//
// The server is the built one (`node scripts/build.mjs` first), on a fresh SQLite DATA_DIR unless
// DATABASE_URL is set. Each agent takes at most --max-chats conversations: the rest of the visitors wait.
import WebSocket from 'ws';
import { api, openSocket } from './client.mjs';
import { ADMIN_PASSWORD, startServer } from './server.mjs';

const arg = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const AGENTS = arg('agents', 50);
const VISITORS = arg('visitors', 5000);
const MAX_CHATS = arg('max-chats', 60);
const ROUNDS = arg('rounds', 5);
const JSON_OUT = process.argv.includes('--json');
/** What the console's workbench asks for as it opens. */
const LOAD = ['/api/index', '/api/talk/userList', '/api/talk/labels', '/api/talk/agents'];

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

const server = await startServer({});
const { url } = server;
const ws = url.replace('http', 'ws');
const sockets = [];
// Every socket beats, as the console and the widget do: the server closes one silent for 15 s.
const heartbeat = setInterval(() => {
  for (const socket of sockets) if (socket.readyState === WebSocket.OPEN) socket.send('Y');
}, 5000);

const admin = (await api(url, '/api/login', { username: 'admin', password: ADMIN_PASSWORD })).token;
const roles = await api(url, '/api/role/getList', undefined, admin);
const agentRole = roles.list.find((role) => role.name === 'Agent').id;
const agents = [];
for (let index = 0; index < AGENTS; index += 1) {
  const username = `bench-agent-${index}`;
  await api(
    url,
    '/api/service/doEdit',
    { username, nickname: username, password: 'bench-pass-1', roleId: agentRole, maxChats: MAX_CHATS },
    admin,
  );
  const token = (await api(url, '/api/login', { username, password: 'bench-pass-1' })).token;
  sockets.push(await openSocket(`${ws}/ws/agent?token=${token}`));
  agents.push(token);
}
for (let batch = 0; batch < VISITORS; batch += 100) {
  await Promise.all(
    Array.from({ length: Math.min(100, VISITORS - batch) }, async (_, offset) => {
      const { YQToken } = await api(url, '/api/visitor/init', { url: `https://shop.example/p/${batch + offset}` });
      sockets.push(await openSocket(`${ws}/ws/visitor?YQToken=${YQToken}`));
      await api(url, '/api/visitor/message', { YQToken, msg: `你好，我想问一下订单 ${batch + offset}`, onlyID: `w-${batch + offset}` });
    }),
  );
}

const loadOnce = async (token) => {
  const at = performance.now();
  const [, visitors] = await Promise.all(LOAD.map((path) => api(url, path, undefined, token)));
  return { ms: performance.now() - at, visitors: visitors.list.length };
};
const agentTimes = [];
let seen = 0;
for (let round = 0; round < ROUNDS; round += 1)
  for (const token of agents) {
    const { ms, visitors } = await loadOnce(token);
    agentTimes.push(ms);
    seen = Math.max(seen, visitors);
  }
const adminTimes = [];
let adminSees = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  const { ms, visitors } = await loadOnce(admin);
  adminTimes.push(ms);
  adminSees = visitors;
}
clearInterval(heartbeat);
for (const socket of sockets) socket.terminate();
await server.stop();

const result = {
  agents: AGENTS,
  visitors: VISITORS,
  maxChats: MAX_CHATS,
  rounds: ROUNDS,
  agent: { p50: percentile(agentTimes, 50), p95: percentile(agentTimes, 95), mostVisitors: seen },
  admin: { p50: percentile(adminTimes, 50), p95: percentile(adminTimes, 95), visitors: adminSees },
};
if (JSON_OUT) process.stdout.write(`${JSON.stringify(result)}\n`);
else {
  process.stdout.write(`${AGENTS} agents (at most ${MAX_CHATS} each), ${VISITORS} visitors talking or waiting\n`);
  process.stdout.write(
    `an agent's workbench   p50 ${result.agent.p50.toFixed(1)} ms   p95 ${result.agent.p95.toFixed(1)} ms   (up to ${seen} visitors listed)\n`,
  );
  process.stdout.write(
    `the admin's workbench  p50 ${result.admin.p50.toFixed(1)} ms   p95 ${result.admin.p95.toFixed(1)} ms   (${adminSees} visitors listed)\n`,
  );
}
