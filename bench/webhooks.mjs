// Webhooks (§12) under load, against a receiver on loopback in a process of its own (bench/receiver.mjs,
// listed in OUTBOUND_ALLOW).
// Two servers in turn, each on a fresh DATA_DIR: one with K webhooks subscribed to message.created, one
// without. On each, V visitors send M messages over HTTP at R a second; it reports the send's p50/p99 (the
// message path, stored and acknowledged) and, with webhooks, the deliveries a second from the first
// send until the receiver has every one (M × K), and whether any came twice; and the CPU time the
// server's processes used from the first send until then (user + system, from /proc; the server's and
// its delivery process's): with and without webhooks, what each delivery costs the processes that send it.
//
//   node bench/webhooks.mjs [--webhooks 3] [--visitors 100] [--messages 3000] [--rate 300] [--json]
import { cpuSeconds } from './proc.mjs';
import { startReceiver } from './receiver.mjs';
import { ADMIN_PASSWORD, startServer } from './server.mjs';

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return Number(at >= 0 ? process.argv[at + 1] : fallback);
}
const hooks = option('webhooks', 3);
const visitors = option('visitors', 100);
const messages = option('messages', 3000);
const rate = option('rate', 300);

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

async function run(webhookCount) {
  // A receiver of its own for each run: its counts are this run's.
  const receiver = await startReceiver();
  const receiverUrl = receiver.url;
  const server = await startServer({ env: { OUTBOUND_ALLOW: '127.0.0.1' } });
  const call = async (path, body, token) => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: response.status, data: (await response.json()).data };
  };
  try {
    const { token } = (await call('/api/login', { username: 'admin', password: ADMIN_PASSWORD })).data;
    for (let i = 0; i < webhookCount; i += 1)
      await call('/api/webhook/doEdit', { url: `${receiverUrl}/${i}`, events: ['message.created'], enabled: true }, token);
    const credentials = [];
    for (let i = 0; i < visitors; i += 1)
      credentials.push((await call('/api/visitor/init', { url: 'https://shop.example/', lang: 'en' })).data.YQToken);
    // The visitors' own events (visitor.created) are not subscribed: only messages count.
    const timings = [];
    let failed = 0;
    const pending = [];
    const started = performance.now();
    const startedAt = Date.now();
    const cpuBefore = cpuSeconds(server.child.pid, { children: true });
    for (let sent = 0; sent < messages; sent += 1) {
      const due = started + (sent / rate) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const credential = credentials[sent % credentials.length];
      const at = performance.now();
      pending.push(
        call('/api/visitor/message', { YQToken: credential, msg: `bench ${sent}`, onlyID: `b-${sent}-${Date.now()}` }).then(
          ({ status }) => {
            if (status === 200) timings.push(performance.now() - at);
            else failed += 1;
          },
          () => {
            failed += 1;
          },
        ),
      );
    }
    await Promise.all(pending);
    const expected = timings.length * webhookCount;
    const deadline = performance.now() + 120_000;
    let had = await receiver.count();
    while (had.received < expected && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      had = await receiver.count();
    }
    const cpu = cpuSeconds(server.child.pid, { children: true }) - cpuBefore;
    const { received, duplicates, lastAt } = had;
    timings.sort((a, b) => a - b);
    return {
      webhooks: webhookCount,
      sent: timings.length,
      failed,
      p50: Number(percentile(timings, 50).toFixed(1)),
      p99: Number(percentile(timings, 99).toFixed(1)),
      delivered: received,
      expected,
      duplicates,
      deliveriesPerSecond: webhookCount > 0 ? Math.round(received / ((lastAt - startedAt) / 1000)) : null,
      cpu: Number(cpu.toFixed(2)),
    };
  } finally {
    await server.stop();
    receiver.stop();
  }
}

const withHooks = await run(hooks);
const without = await run(0);
if (process.argv.includes('--json')) console.log(JSON.stringify({ withHooks, without }));
else {
  for (const result of [withHooks, without])
    console.log(
      `${result.webhooks} webhooks: ${result.sent} sent (${result.failed} failed), send p50 ${result.p50} ms p99 ${result.p99} ms, CPU of the server and its delivery process ${result.cpu} s` +
        (result.webhooks > 0
          ? `; ${result.delivered}/${result.expected} delivered, ${result.deliveriesPerSecond}/s, ${result.duplicates} twice`
          : ''),
    );
  console.log(`p99 with webhooks / without: ${(withHooks.p99 / without.p99).toFixed(2)}`);
  if (withHooks.delivered > 0)
    console.log(
      `CPU per delivery (the server and its delivery process): ${(((withHooks.cpu - without.cpu) / withHooks.delivered) * 1000).toFixed(3)} ms`,
    );
}
