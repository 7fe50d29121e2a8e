import { createHmac, randomUUID } from 'node:crypto';
import type { Conversation, IdentifiedVisitor, Message, Visitor, WebhookWithSecret } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';
import { WebhookReceiver } from './webhook-receiver.js';

let server: TestServer;
let admin: string;
let secret: string;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer({ OUTBOUND_ALLOW: '127.0.0.1', WEBHOOK_POLL_MS: '50' });
  admin = await server.login();
  secret = (await server.get<{ identitySecret: string }>('/api/access/identitySecret', { token: admin })).body.data.identitySecret;
  receiver = await WebhookReceiver.start();
  await server.post<WebhookWithSecret>(
    '/api/webhook/doEdit',
    { url: receiver.url, events: ['visitor.identified'], enabled: true },
    { token: admin },
  );
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

const hashOf = (id: string, key = secret) => createHmac('sha256', key).update(id).digest('hex');

/** A new browser: a visitor of its own, as the widget's init makes one. */
async function browser() {
  const init = await server.post<{ YQToken: string; id: string }>('/api/visitor/init', { url: 'https://shop.example/' });
  expect(init.status).toBe(200);
  return init.body.data;
}

function identify(YQToken: string, id: string, extra: Record<string, unknown> = {}) {
  return server.post<IdentifiedVisitor>('/api/visitor/identify', { YQToken, id, hash: hashOf(id), ...extra });
}

async function say(YQToken: string, msg: string) {
  const sent = await server.post<Message>('/api/visitor/message', { YQToken, msg, onlyID: randomUUID() });
  expect(sent.status).toBe(200);
  return sent.body.data;
}

async function history(YQToken: string): Promise<string[]> {
  const list = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${YQToken}&afterSeq=0`);
  return list.body.data.list.filter((m) => m.role === 'user').map((m) => m.msg);
}

const newUser = () => `user-${randomUUID()}`;

describe('the identity secret', () => {
  it('is made on the Admin first read, sealed at rest, and rotation refuses hashes of the old one', async () => {
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The settings page never answers it back; the database holds it sealed.
    const page = await server.get<Record<string, unknown>>('/api/settings/appSetting', { token: admin });
    expect(page.body.data).toMatchObject({ identitySecret: '', hasIdentitySecret: true });
    const row = await server.storage.db.selectFrom('settings').select('value').where('page', '=', 'appSetting').executeTakeFirstOrThrow();
    expect(row.value).not.toContain(secret);

    const visitor = await browser();
    const user = newUser();
    const old = secret;
    const rotated = await server.post<{ identitySecret: string }>('/api/access/identitySecret/rotate', {}, { token: admin });
    secret = rotated.body.data.identitySecret;
    expect(secret).not.toBe(old);
    const stale = await server.post('/api/visitor/identify', { YQToken: visitor.YQToken, id: user, hash: hashOf(user, old) });
    expect(stale.status).toBe(401);
    expect((await identify(visitor.YQToken, user)).status).toBe(200);
    const audit = await server.get<{ list: { action: string; detail: string }[] }>('/api/audit/getList?pageNo=1&pageSize=5', {
      token: admin,
    });
    expect(JSON.stringify(audit.body.data.list)).toContain('identitySecret');
    expect(JSON.stringify(audit.body.data.list)).not.toContain(secret);
  });

  it('is read and rotated by an Admin only', async () => {
    expect((await server.get('/api/access/identitySecret')).status).toBe(401);
  });
});

describe('POST /api/visitor/identify', () => {
  it('refuses a wrong hash with 401 and changes nothing', async () => {
    const visitor = await browser();
    const user = newUser();
    for (const hash of [hashOf(`${user}x`), '0'.repeat(64), 'nope', hashOf(user, 'another-secret-of-32-characters-long')]) {
      const refused = await server.post('/api/visitor/identify', { YQToken: visitor.YQToken, id: user, hash, name: 'Mallory' });
      expect(refused.status).toBe(401);
    }
    const record = await server.get<{ visitor: { name: string } }>(`/api/user/detail?YQToken=${visitor.id}`, { token: admin });
    expect(record.body.data.visitor.name).toBe('');
  });

  it('makes one visitor of a user on two browsers: one history, one conversation, the same unread count', async () => {
    const user = newUser();
    const first = await browser();
    const one = await identify(first.YQToken, user, { name: 'Ada', email: 'ada@example.com' });
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ userId: user, name: 'Ada', email: 'ada@example.com', id: first.id });
    await say(one.body.data.YQToken, 'from the laptop');

    const second = await browser();
    const two = await identify(second.YQToken, user);
    expect(two.body.data.id).toBe(first.id);
    await say(two.body.data.YQToken, 'from the phone');
    expect(await history(one.body.data.YQToken)).toEqual(['from the laptop', 'from the phone']);
    expect(await history(two.body.data.YQToken)).toEqual(['from the laptop', 'from the phone']);

    // The agents see one visitor with both messages unread.
    const list = await server.get<{ list: Visitor[] }>('/api/talk/userList', { token: admin });
    const seen = list.body.data.list.filter((v) => v.userId === user);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ YQToken: first.id, unreadNumber: 2, name: 'Ada' });
    // The second browser's own anonymous visitor is gone from the lists and its credential opens nothing.
    expect(list.body.data.list.some((v) => v.YQToken === second.id)).toBe(false);
    expect((await server.get(`/api/visitor/messages?YQToken=${second.YQToken}`)).status).toBe(401);
  });

  it("shows a user's own message at once on their other open browsers, and an anonymous visitor's nowhere else", async () => {
    const user = newUser();
    const laptop = (await identify((await browser()).YQToken, user)).body.data;
    const phone = (await identify((await browser()).YQToken, user)).body.data;
    const socketOf = (credential: string) => TestSocket.open(`${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${credential}`);
    const onPhone = await socketOf(phone.YQToken);
    try {
      const sent = await say(laptop.YQToken, 'typed on the laptop');
      const shown = await onPhone.until(() =>
        onPhone.frames.find((frame) => (frame as { code: string; data?: Message }).data?.onlyID === sent.onlyID),
      );
      expect(shown).toMatchObject({ code: '8006', data: { msg: 'typed on the laptop', seq: sent.seq } });
    } finally {
      onPhone.close();
    }
    // An anonymous visitor has one browser: nothing of theirs is sent back to it.
    const anonymous = await browser();
    const own = await socketOf(anonymous.YQToken);
    try {
      await say(anonymous.YQToken, 'only here');
      await own.barrier();
      expect(own.frames.filter((frame) => (frame as { code: string }).code === '8006')).toEqual([]);
    } finally {
      own.close();
    }
  });

  it('merges an anonymous history into the user it identifies as, after the user history', async () => {
    const user = newUser();
    const laptop = await browser();
    const known = (await identify(laptop.YQToken, user)).body.data;
    await say(known.YQToken, 'earlier, signed in');

    const phone = await browser();
    await say(phone.YQToken, 'before signing in');
    await say(phone.YQToken, 'still anonymous');
    // A console open meanwhile follows the merge without reading its list again.
    const workbench = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/agent?token=${admin}`);
    await workbench.frame('0000');
    const joined = (await identify(phone.YQToken, user)).body.data;
    expect(joined.id).toBe(laptop.id);
    type StateFrame = { code: string; data: { YQToken: string; state: string } };
    const stateOf = (id: string) =>
      (workbench.frames as StateFrame[]).filter((frame) => frame.code === '8001' && frame.data.YQToken === id).at(-1)?.data.state;
    await workbench.until(() => stateOf(phone.id) === 'end' && stateOf(laptop.id));
    workbench.close();
    const messages = (await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${joined.YQToken}&afterSeq=0`)).body.data.list;
    expect(messages.filter((m) => m.role === 'user').map((m) => m.msg)).toEqual([
      'earlier, signed in',
      'before signing in',
      'still anonymous',
    ]);
    // Seqs stay gap-free after the merge, and the next message continues them.
    expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i + 1));
    const next = await say(joined.YQToken, 'after');
    expect(next.seq).toBe(messages.length + 1);
    // The agent's view of the user has it all; the merged visitor's id shows nothing any more.
    const agentView = await server.get<{ list: Message[] }>(`/api/talk/messages?YQToken=${laptop.id}&afterSeq=0`, { token: admin });
    expect(agentView.body.data.list.map((m) => m.msg)).toEqual(expect.arrayContaining(['before signing in', 'after']));
    await waitFor(
      () => receiver.received.some((r) => r.body.includes(user) && r.body.includes(phone.id)),
      5000,
      'visitor.identified naming the merged visitor',
    );
    const told = receiver.received.map((r) => JSON.parse(r.body)).find((e) => e.data.mergedFrom === phone.id);
    expect(told).toMatchObject({ type: 'visitor.identified', data: { visitor: { YQToken: laptop.id, userId: user } } });
  });

  it('keeps all of an identification or none: refused for its attributes, the anonymous history stays where it was', async () => {
    const user = newUser();
    const laptop = await browser();
    const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`a${i}`, i]));
    expect((await identify(laptop.YQToken, user, { attributes: full })).status).toBe(200);

    const phone = await browser();
    await say(phone.YQToken, 'anonymous, then refused');
    // One more attribute than the user's visitor may hold: found only once the two are joined.
    const refused = await identify(phone.YQToken, user, { attributes: { plan: 'gold' } });
    expect(refused.status).toBe(400);
    expect(await history(phone.YQToken)).toEqual(['anonymous, then refused']);
    await say(phone.YQToken, 'still mine');
    expect(await history(phone.YQToken)).toEqual(['anonymous, then refused', 'still mine']);
    const known = (await identify(laptop.YQToken, user)).body.data;
    expect(await history(known.YQToken)).toEqual([]);
    expect(known.attributes).not.toHaveProperty('plan');
    // Nothing of the refused one is told: a later identification of the phone arrives, the merge never does.
    const other = newUser();
    expect((await identify(phone.YQToken, other)).status).toBe(200);
    type Told = { data: { visitor: { YQToken: string; userId: string }; mergedFrom: string | null } };
    const events = () => receiver.received.map((r) => JSON.parse(r.body) as Told);
    await waitFor(() => events().some((e) => e.data.visitor.userId === other), 5000, 'the phone identified as another user');
    expect(events().filter((e) => e.data.mergedFrom === phone.id)).toEqual([]);
  });

  it('never reveals another user: a browser identified as one user that identifies as another gets that user only', async () => {
    const alice = newUser();
    const bob = newUser();
    const aliceBrowser = (await identify((await browser()).YQToken, alice, { attributes: { plan: 'gold' } })).body.data;
    await say(aliceBrowser.YQToken, 'alice secret');

    // Bob's hash for Alice's id is refused; a hash for Bob on Alice's browser gives Bob's own visitor.
    const forged = await server.post('/api/visitor/identify', { YQToken: aliceBrowser.YQToken, id: alice, hash: hashOf(bob) });
    expect(forged.status).toBe(401);
    const switched = await identify(aliceBrowser.YQToken, bob);
    expect(switched.status).toBe(200);
    expect(switched.body.data.id).not.toBe(aliceBrowser.id);
    expect(switched.body.data.attributes).toEqual({});
    expect(await history(switched.body.data.YQToken)).toEqual([]);
    // Alice's history stayed with Alice, and Bob's visitor gained nothing of hers.
    expect(await history(aliceBrowser.YQToken)).toEqual(['alice secret']);
    await say(switched.body.data.YQToken, 'bob here');
    expect(await history(aliceBrowser.YQToken)).toEqual(['alice secret']);
  });

  it('reset: a browser that forgets its credential starts a new anonymous visitor, without the user history', async () => {
    const user = newUser();
    const signedIn = (await identify((await browser()).YQToken, user)).body.data;
    await say(signedIn.YQToken, 'mine');
    const fresh = await browser();
    expect(fresh.id).not.toBe(signedIn.id);
    expect(await history(fresh.YQToken)).toEqual([]);
  });
});

describe('attributes', () => {
  it('are kept with name, email and phone, shown to agents and added to, not replaced', async () => {
    const visitor = await browser();
    const set = await server.post<IdentifiedVisitor>('/api/visitor/attributes', {
      YQToken: visitor.YQToken,
      phone: '+86 138 0000 0000',
      attributes: { plan: 'pro', seats: 12, trial: false },
    });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ userId: null, phone: '+86 138 0000 0000', attributes: { plan: 'pro', seats: 12, trial: false } });
    const more = await server.post<IdentifiedVisitor>('/api/visitor/attributes', { YQToken: visitor.YQToken, attributes: { seats: 13 } });
    expect(more.body.data.attributes).toEqual({ plan: 'pro', seats: 13, trial: false });
    await say(visitor.YQToken, 'hello');
    const list = await server.get<{ list: Visitor[] }>('/api/talk/userList', { token: admin });
    expect(list.body.data.list.find((v) => v.YQToken === visitor.id)).toMatchObject({ attributes: { plan: 'pro', seats: 13 } });
  });

  it('find the visitor in the history and visitor lists by user id or attribute, and go into the history export', async () => {
    const user = newUser();
    const visitor = await browser();
    const made = await identify(visitor.YQToken, user, {
      email: 'grace@example.com',
      phone: '+1 555 0100',
      attributes: { plan: 'enterprise-x7' },
    });
    expect(made.status).toBe(200);
    await say(made.body.data.YQToken, 'who am I to you?');
    for (const keyword of [user, 'enterprise-x7']) {
      const found = await server.get<{ list: Conversation[] }>(`/api/history/getList?keyword=${encodeURIComponent(keyword)}`, {
        token: admin,
      });
      expect(found.status).toBe(200);
      expect(found.body.data.list.map((row) => row.YQToken)).toEqual([visitor.id]);
      expect(found.body.data.list[0]).toMatchObject({
        userId: user,
        email: 'grace@example.com',
        phone: '+1 555 0100',
        attributes: { plan: 'enterprise-x7' },
      });
      const records = await server.get<{ list: { YQToken: string }[] }>(`/api/user/getList?keyword=${encodeURIComponent(keyword)}`, {
        token: admin,
      });
      expect(records.body.data.list.map((row) => row.YQToken)).toEqual([visitor.id]);
    }
    const detail = await server.get<{ visitor: Visitor }>(`/api/user/detail?YQToken=${visitor.id}`, { token: admin });
    expect(detail.body.data.visitor).toMatchObject({ userId: user, attributes: { plan: 'enterprise-x7' } });
    const exported = await fetch(`${server.url}/api/history/export?keyword=${user}`, {
      headers: { authorization: `Bearer ${admin}`, 'accept-language': 'en' },
    });
    expect(exported.status).toBe(200);
    // text() drops the BOM; the last four columns are the visitor's identity (a leading + kept from formulas).
    const [header, row] = (await exported.text()).trim().split('\n');
    expect(header).toMatch(/,Internal notes,User ID,Email,Phone,Attributes$/);
    expect(row).toMatch(new RegExp(`,${user},grace@example\\.com,'\\+1 555 0100,plan: enterprise-x7$`));
  });

  it('answer 400 naming the field for more than 50 keys, a long value, a wrong type or a bad name', async () => {
    const visitor = await browser();
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    const cases: [Record<string, unknown>, string][] = [
      [many, 'attributes'],
      [{ note: 'x'.repeat(501) }, 'attributes.note'],
      [{ nested: { a: 1 } }, 'attributes.nested'],
      [{ list: [1, 2] }, 'attributes.list'],
      [{ 'bad key': 1 }, 'attributes'],
    ];
    for (const [attributes, field] of cases) {
      const refused = await server.post('/api/visitor/attributes', { YQToken: visitor.YQToken, attributes });
      expect(refused.status, JSON.stringify(attributes).slice(0, 60)).toBe(400);
      expect(refused.body.msg).toContain(field);
    }
    // 50 over two calls: the sum is held to the limit too.
    const half = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`a${i}`, true]));
    expect((await server.post('/api/visitor/attributes', { YQToken: visitor.YQToken, attributes: half })).status).toBe(200);
    const other = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`b${i}`, 'x']));
    const over = await server.post('/api/visitor/attributes', { YQToken: visitor.YQToken, attributes: other });
    expect(over.status).toBe(400);
    expect(over.body.msg).toContain('attributes');
    const identifyOver = await identify(visitor.YQToken, newUser(), { attributes: many });
    expect(identifyOver.status).toBe(400);
  });
});

describe('requireIdentity', () => {
  it('refuses messages of visitors the site has not identified (403), and takes those of identified ones', async () => {
    const page = (await server.get<Record<string, unknown>>('/api/settings/appSetting', { token: admin })).body.data;
    // Already in a conversation when the site began to ask: its next message is refused all the same.
    const talking = await browser();
    await say(talking.YQToken, 'before the rule');
    expect((await server.post('/api/settings/appSetting', { ...page, requireIdentity: true }, { token: admin })).status).toBe(200);
    try {
      const late = await server.post('/api/visitor/message', { YQToken: talking.YQToken, msg: 'after the rule', onlyID: randomUUID() });
      expect(late.status).toBe(403);
      expect(await history(talking.YQToken)).toEqual(['before the rule']);
      const anonymous = await browser();
      const refused = await server.post('/api/visitor/message', { YQToken: anonymous.YQToken, msg: 'hi', onlyID: randomUUID() });
      expect(refused.status).toBe(403);
      expect(refused.body.msg).toBe('Please sign in to this site to chat with us');
      expect(await history(anonymous.YQToken)).toEqual([]);
      const member = (await identify(anonymous.YQToken, newUser())).body.data;
      await say(member.YQToken, 'member question');
      expect(await history(member.YQToken)).toEqual(['member question']);
    } finally {
      await server.post('/api/settings/appSetting', { ...page, requireIdentity: false }, { token: admin });
    }
    // The secret survived the page being saved without it.
    expect((await server.get<{ identitySecret: string }>('/api/access/identitySecret', { token: admin })).body.data.identitySecret).toBe(
      secret,
    );
  });
});
