// The WeChat channel (§11) under load, against a double of WeChat's API started here: signed text pushes
// to /wechat/officialAccount at R a second for D seconds from U users, each timed until `success`, while
// an agent replies to some of them; then the outbound queue's rate: M agent replies, timed from the first
// send until WeChat's double has received the last.
//
//   node bench/wechat.mjs [--rate 500] [--seconds 10] [--users 200] [--replies 500]
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { ADMIN_PASSWORD, startServer } from './server.mjs';

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return Number(at >= 0 ? process.argv[at + 1] : fallback);
}
const rate = option('rate', 500);
const seconds = option('seconds', 10);
const users = option('users', 200);
const replies = option('replies', 500);
const TOKEN = 'bench-token';

// WeChat's double: tokens, and custom/send counting what it was given.
let received = 0;
const double = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    if (req.url.startsWith('/cgi-bin/stable_token')) return res.end(JSON.stringify({ access_token: 'bench', expires_in: 7200 }));
    if (req.url.startsWith('/cgi-bin/message/custom/send')) received += 1;
    res.end('{"errcode":0}');
  });
});
await new Promise((resolve) => double.listen(0, '127.0.0.1', resolve));
const server = await startServer({ env: { WECHAT_API_BASE: `http://127.0.0.1:${double.address().port}` } });
const call = async (path, body, token) => {
  const response = await fetch(`${server.url}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await response.json()).data;
};
try {
  const { token } = await call('/api/login', { username: 'admin', password: ADMIN_PASSWORD });
  await call(
    '/api/settings/weChatSetting',
    { officialAccount: { enabled: true, appId: 'wx-bench', appSecret: 'secret', token: TOKEN } },
    token,
  );
  const openids = Array.from({ length: users }, (_, i) => `oBench${i}_${randomBytes(4).toString('hex')}`);
  let msgId = Date.now() * 1000;
  const push = async (openid) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = String(Math.floor(Math.random() * 1e9));
    const signature = createHash('sha1').update([TOKEN, timestamp, nonce].sort().join('')).digest('hex');
    const body = `<xml><ToUserName>gh</ToUserName><FromUserName>${openid}</FromUserName><CreateTime>${timestamp}</CreateTime><MsgType>text</MsgType><Content>hello</Content><MsgId>${++msgId}</MsgId></xml>`;
    const started = performance.now();
    const response = await fetch(`${server.url}/wechat/officialAccount?signature=${signature}&timestamp=${timestamp}&nonce=${nonce}`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml' },
      body,
    });
    const ok = (await response.text()) === 'success';
    return { ok, ms: performance.now() - started };
  };
  // A push the server did not answer (a reset connection) counts as failed, as WeChat would count it.
  const tryPush = (openid) => push(openid).catch(() => ({ ok: false, ms: 0 }));
  // Each user writes once first, so that the timed pushes measure the steady state, not visitors being made.
  for (let i = 0; i < openids.length; i += 20) await Promise.all(openids.slice(i, i + 20).map(push));
  const list = (await call('/api/talk/userList', undefined, token)).list.slice(0, 5);
  for (const visitor of list) await call('/api/talk/accept', { YQToken: visitor.YQToken }, token);

  // Inbound at the rate asked, an agent replying to its visitors meanwhile (one reply per 10 pushes).
  const timings = [];
  let failed = 0;
  const pending = [];
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    for (; sent < due; sent++) {
      pending.push(
        tryPush(openids[sent % openids.length]).then((result) => {
          if (result.ok) timings.push(result.ms);
          else failed += 1;
        }),
      );
      if (sent % 10 === 0 && list.length > 0)
        pending.push(
          call('/api/talk/send', { YQToken: list[sent % list.length].YQToken, msg: `reply ${sent}`, onlyID: `b-${sent}` }, token).catch(
            () => {
              failed += 1;
            },
          ),
        );
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1000;
  timings.sort((a, b) => a - b);
  const at = (q) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]?.toFixed(1);
  console.log(
    `inbound: ${(timings.length / elapsed).toFixed(0)} pushes/s answered 'success' (asked ${rate}/s), p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, failed ${failed}`,
  );

  // Outbound: M replies, timed until the double has them all.
  const before = received;
  const outStarted = performance.now();
  await Promise.all(
    Array.from({ length: replies }, (_, i) =>
      call('/api/talk/send', { YQToken: list[i % list.length].YQToken, msg: `out ${i}`, onlyID: `o-${i}` }, token),
    ),
  );
  while (received - before < replies && performance.now() - outStarted < 120_000) await new Promise((resolve) => setTimeout(resolve, 10));
  const outSeconds = (performance.now() - outStarted) / 1000;
  console.log(
    `outbound: ${received - before} of ${replies} replies reached the double in ${outSeconds.toFixed(2)} s (${((received - before) / outSeconds).toFixed(0)}/s)`,
  );
} finally {
  await server.stop();
  double.close();
}
