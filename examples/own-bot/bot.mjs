// A bot of one's own for Parley: it hears visitors' messages through a webhook (`message.created`),
// answers the questions it knows with an API token (`POST /api/talk/send`), and hands the visitor to a
// person when asked (`POST /api/talk/transfer` with `serviceID: "queue"`). Node 20, no dependencies.
//
//   PARLEY_URL=https://chat.example.com PARLEY_TOKEN=pat_… WEBHOOK_SECRET=whsec_… PORT=8787 node bot.mjs
//
// In Parley: make an agent for the bot (its nickname is what visitors see), sign in as it, and on
// Integration make an API token and a webhook to http://<this machine>:8787/ taking `message.created`
// (and `conversation.ended`). See README.md beside this file.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const { PARLEY_URL, PARLEY_TOKEN, WEBHOOK_SECRET } = process.env;
const PORT = Number(process.env.PORT ?? 8787);
if (!PARLEY_URL || !PARLEY_TOKEN || !WEBHOOK_SECRET) {
  console.error('Set PARLEY_URL, PARLEY_TOKEN and WEBHOOK_SECRET.');
  process.exit(1);
}

/** What the bot knows: a pattern of the visitor's words, and its answer. Replace with your own. */
const ANSWERS = [
  { when: /\b(hours?|open|close)\b|营业时间|几点/i, say: 'We are open every day from 9:00 to 18:00 (UTC+8).' },
  { when: /\b(ship|shipping|deliver|delivery)\b|发货|快递|配送/i, say: 'Orders ship within 24 hours; delivery takes 2 to 4 days.' },
  { when: /\b(refund|return)\b|退款|退货/i, say: 'You can return anything within 30 days for a full refund.' },
];
/** Words that ask for a person. */
const PERSON = /\b(human|person|agent|someone)\b|人工|真人|客服/i;
const UNKNOWN = 'I am the shop’s bot. Ask me about opening hours, shipping or refunds, or write “human” to talk to a person.';

/** Visitors handed to a person: the bot stays out of their conversation until it ends. */
const handedOver = new Set();

/** Checks `Parley-Signature: t=<s>,v1=<hex>[,v1=<hex>]` over "<t>.<body>", and that it is recent. */
function signedByParley(header, body) {
  if (typeof header !== 'string') return false;
  const parts = header.split(',').map((part) => part.split('='));
  const t = Number(parts.find(([key]) => key === 't')?.[1]);
  if (!Number.isFinite(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', WEBHOOK_SECRET).update(`${t}.${body}`).digest();
  return parts
    .filter(([key]) => key === 'v1')
    .some(([, hex]) => {
      const given = Buffer.from(hex ?? '', 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** One call of Parley's API with the token; answers the envelope's data, or throws with its message. */
async function parley(path, body) {
  const response = await fetch(new URL(path, PARLEY_URL), {
    method: 'POST',
    headers: { authorization: `Bearer ${PARLEY_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (answer.code !== 200) throw new Error(`${path}: ${answer.code} ${answer.msg}`);
  return answer.data;
}

async function onEvent(event) {
  if (event.type === 'conversation.ended') {
    handedOver.delete(event.data.conversation.visitor.YQToken);
    return;
  }
  if (event.type !== 'message.created') return;
  const { message, visitor } = event.data;
  // Only the visitor's own words; the bot's and the agents' messages come back here too.
  if (message.role !== 'user' || message.type !== 'text' || handedOver.has(visitor.YQToken)) return;
  if (PERSON.test(message.msg)) {
    // The bot must hold the conversation to hand it on: a waiting visitor is taken by its first answer.
    await parley('/api/talk/send', {
      YQToken: visitor.YQToken,
      msg: 'Of course: a colleague will be with you shortly.',
      onlyID: randomUUID(),
    });
    await parley('/api/talk/transfer', { YQToken: visitor.YQToken, serviceID: 'queue' });
    handedOver.add(visitor.YQToken);
    return;
  }
  const known = ANSWERS.find((entry) => entry.when.test(message.msg));
  // A visitor a person is already talking to answers 403: not the bot's conversation, and it stays out.
  await parley('/api/talk/send', { YQToken: visitor.YQToken, msg: known ? known.say : UNKNOWN, onlyID: randomUUID() }).catch((error) =>
    console.warn(String(error.message)),
  );
}

const server = createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > 1024 * 1024) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.method !== 'POST' || !signedByParley(req.headers['parley-signature'], body)) {
      res.writeHead(401).end();
      return;
    }
    // Answered at once (Parley waits 10 s at most); the work follows, in the order events came.
    res.writeHead(204).end();
    queue = queue.then(() => onEvent(JSON.parse(body))).catch((error) => console.error(error));
  });
});
let queue = Promise.resolve();
server.listen(PORT, () => console.log(`bot listening on ${server.address().port}`));
