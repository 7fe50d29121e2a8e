import type { AuditEntry, CensusTalk, Conversation, ConversationDetail, ConversationLabels, Label } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, type TestVisitor, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';

type List<T> = { list: T[]; total: number };

let server: TestServer;
let admin: string;
/** Agents whose role holds nothing: they chat, read the label list, and label their own conversations. */
let alice: string;
let bob: string;
/** An agent whose role holds setPermissions:service only: they manage the list. */
let keeper: string;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  server = await startTestServer({ SITE_TIMEZONE: 'Asia/Shanghai' });
  admin = await server.login();
  expect((await server.post('/api/role/doEdit', { name: 'Chat only', permissions: [] }, { token: admin })).status).toBe(200);
  const managers = { name: 'Team leads', permissions: ['setPermissions:service'] };
  expect((await server.post('/api/role/doEdit', managers, { token: admin })).status).toBe(200);
  alice = (await createAgent(server, admin, { username: 'alice', role: 'Chat only' })).token ?? '';
  bob = (await createAgent(server, admin, { username: 'bob', role: 'Chat only' })).token ?? '';
  keeper = (await createAgent(server, admin, { username: 'keeper', role: 'Team leads' })).token ?? '';
  // Conversations go only to agents with a console open; onlyAvailable() picks which of them.
  for (const token of [admin, alice, bob]) sockets.push(await agentSocket(server, token));
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await server.close();
});

const labels = (token = alice, query = '') => server.get<List<Label>>(`/api/label/getList?pageSize=100${query}`, { token });
const save = (body: Record<string, unknown>, token = keeper) => server.post<{ id: number }>('/api/label/doEdit', body, { token });
const setLabels = (YQToken: string, labelIds: number[], token = alice) =>
  server.post<ConversationLabels>('/api/talk/labels', { YQToken, labelIds }, { token });
const history = (query: string, token = admin) => server.get<List<Conversation>>(`/api/history/getList?pageSize=100&${query}`, { token });

async function created(body: Record<string, unknown>): Promise<number> {
  const response = await save(body);
  expect(response.status).toBe(200);
  return response.body.data.id;
}

/** Only this agent is available: the next visitor who writes is theirs. */
async function onlyAvailable(token: string): Promise<void> {
  for (const other of [admin, alice, bob]) await server.post('/api/index/state', { state: other === token ? '0' : '1' }, { token: other });
}

/** A visitor who writes while only `token`'s agent is available: that agent's conversation. */
async function conversationWith(token: string, words: string[] = ['hello']): Promise<TestVisitor> {
  await onlyAvailable(token);
  const v = await visitor(server);
  sockets.push(v.socket);
  for (const word of words) await v.say(word);
  return v;
}

async function auditOf(action: string): Promise<AuditEntry[]> {
  const response = await server.get<List<AuditEntry>>(`/api/audit/getList?action=${action}&pageSize=100`, { token: admin });
  expect(response.status).toBe(200);
  return response.body.data.list;
}

describe('the label list', () => {
  it('is read by any agent and changed only with setPermissions:service', async () => {
    expect((await server.get('/api/label/getList')).status).toBe(401);
    expect((await labels(alice)).status).toBe(200);
    const refused = await save({ name: 'Nope', color: '#123456' }, alice);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(403);
    expect((await server.post('/api/label/doDelete', { ids: [1] }, { token: alice })).status).toBe(403);
    expect((await save({ name: 'By admin', color: '#654321' }, admin)).status).toBe(200);
  });

  it('creates, updates and deletes labels, each change in the audit log', async () => {
    const id = await created({ name: 'Refund', color: '#FF8800', description: 'Asked for money back' });
    const found = (await labels()).body.data.list.find((label) => label.id === id);
    expect(found).toEqual({
      id,
      name: 'Refund',
      color: '#ff8800',
      description: 'Asked for money back',
      conversations: 0,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect((await save({ id, name: 'Refunds', color: '#ff8800' })).status).toBe(200);
    const renamed = (await labels()).body.data.list.find((label) => label.id === id);
    expect(renamed).toMatchObject({ name: 'Refunds', description: '' });
    expect((await server.post('/api/label/doDelete', { ids: [id] }, { token: keeper })).status).toBe(200);
    expect((await labels()).body.data.list.some((label) => label.id === id)).toBe(false);

    const create = await auditOf('label.create');
    expect(create.find((entry) => entry.target === 'label:Refund')).toMatchObject({ actor: 'keeper', detail: { id, color: '#ff8800' } });
    const update = await auditOf('label.update');
    expect(update.find((entry) => entry.target === 'label:Refunds')).toMatchObject({ actor: 'keeper', detail: { id } });
    expect(update.find((entry) => entry.target === 'label:Refunds')?.detail.fields).toEqual(
      expect.arrayContaining(['name', 'description']),
    );
    const removed = await auditOf('label.delete');
    expect(removed.find((entry) => entry.target === 'label:Refunds')).toMatchObject({ actor: 'keeper', detail: { id } });
  });

  it('refuses a taken name (whatever its case), a colour that is not #rrggbb and an unknown id, naming the field', async () => {
    await created({ name: 'Complaint', color: '#aa0000' });
    const taken = await save({ name: 'complaint', color: '#00aa00' });
    expect(taken.status).toBe(400);
    expect(taken.body.msg).toContain('name');
    const other = await created({ name: 'Praise', color: '#00aa00' });
    expect((await save({ id: other, name: 'COMPLAINT', color: '#00aa00' })).status).toBe(400);
    for (const color of ['red', '#abc', '#12345g', '']) {
      const bad = await save({ name: `Colour ${color}`, color });
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toContain('color');
    }
    const blank = await save({ name: '  ', color: '#000000' });
    expect(blank.status).toBe(400);
    expect(blank.body.msg).toContain('name');
    expect((await save({ id: 999999, name: 'Ghost', color: '#000000' })).status).toBe(404);
    const zh = await server.post('/api/label/doEdit', { name: 'COMPLAINT', color: '#000000' }, { token: keeper, lang: 'zh' });
    expect(zh.body.msg).toContain('已被使用');
  });
});

describe('labels on conversations', () => {
  let vip: number;
  let billing: number;
  let forAlice: TestVisitor;
  let forBob: TestVisitor;

  beforeAll(async () => {
    vip = await created({ name: 'VIP', color: '#d4380d' });
    billing = await created({ name: 'Billing', color: '#1677ff' });
    forAlice = await conversationWith(alice, ['hi', 'my invoice']);
    forBob = await conversationWith(bob);
  });

  it('lets the conversation’s agent set them, answering them by name', async () => {
    const response = await setLabels(forAlice.id, [vip, billing, vip]);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      YQToken: forAlice.id,
      conversationId: expect.any(Number),
      labels: [
        { id: billing, name: 'Billing', color: '#1677ff' },
        { id: vip, name: 'VIP', color: '#d4380d' },
      ],
    });
    const mine = await server.get<{ list: ConversationLabels[] }>('/api/talk/labels', { token: alice });
    expect(mine.status).toBe(200);
    expect(mine.body.data.list.find((item) => item.YQToken === forAlice.id)?.labels.map((label) => label.name)).toEqual(['Billing', 'VIP']);
  });

  it('answers 403 to another agent and lets a supervisor change them', async () => {
    const refused = await setLabels(forAlice.id, [], bob);
    expect(refused.status).toBe(403);
    const bobSees = await server.get<{ list: ConversationLabels[] }>('/api/talk/labels', { token: bob });
    expect(bobSees.body.data.list.some((item) => item.YQToken === forAlice.id)).toBe(false);
    // Supervisors see every open conversation's labels, and may change them.
    const supervisorSees = await server.get<{ list: ConversationLabels[] }>('/api/talk/labels', { token: admin });
    expect(supervisorSees.body.data.list.some((item) => item.YQToken === forAlice.id)).toBe(true);
    expect((await setLabels(forBob.id, [billing], admin)).status).toBe(200);
    expect((await setLabels(forBob.id, [billing], bob)).status).toBe(200);
  });

  it('refuses unknown labels naming labelIds, unknown visitors with 404, and bad input with 400', async () => {
    const unknown = await setLabels(forAlice.id, [vip, 999999]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.msg).toContain('labelIds');
    expect((await setLabels('A'.repeat(22), [vip])).status).toBe(404);
    expect((await server.post('/api/talk/labels', { YQToken: forAlice.id, labelIds: 'vip' }, { token: alice })).status).toBe(400);
    expect((await server.post('/api/talk/labels', { YQToken: forAlice.id, labelIds: [vip] })).status).toBe(401);
    // Nothing changed by the refusals.
    const list = await server.get<{ list: ConversationLabels[] }>('/api/talk/labels', { token: alice });
    expect(list.body.data.list.find((item) => item.YQToken === forAlice.id)?.labels).toHaveLength(2);
  });

  it('keeps them once the conversation ended, and the agent may still change them', async () => {
    expect((await server.post('/api/talk/end', { YQToken: forAlice.id }, { token: alice })).status).toBe(200);
    expect((await setLabels(forAlice.id, [vip, billing])).status).toBe(200);
  });

  it('shows them in history, filters by a label, and exports them in a Labels column', async () => {
    const plain = await conversationWith(alice, ['=cmd|calc']);
    const all = await history('');
    const row = all.body.data.list.find((item) => item.YQToken === forAlice.id);
    expect(row?.labels.map((label) => label.name)).toEqual(['Billing', 'VIP']);
    expect(all.body.data.list.find((item) => item.YQToken === plain.id)?.labels).toEqual([]);

    const byVip = await history(`label=${vip}`);
    expect(byVip.status).toBe(200);
    expect(byVip.body.data.list.map((item) => item.YQToken)).toEqual([forAlice.id]);
    expect(byVip.body.data.total).toBe(1);
    const byBilling = await history(`label=${billing}`);
    expect(byBilling.body.data.list.map((item) => item.YQToken).sort()).toEqual([forAlice.id, forBob.id].sort());
    expect((await history('label=abc')).status).toBe(400);
    // An agent without seeHistorical still sees only their own conversations under the filter.
    expect((await history(`label=${billing}`, bob)).body.data.list.map((item) => item.YQToken)).toEqual([forBob.id]);

    const detail = await server.get<ConversationDetail>(`/api/history/detail?id=${row?.id}`, { token: admin });
    expect(detail.body.data.conversation.labels).toEqual([
      { id: billing, name: 'Billing', color: '#1677ff' },
      { id: vip, name: 'VIP', color: '#d4380d' },
    ]);

    const csv = await fetch(`${server.url}/api/history/export?label=${billing}`, {
      headers: { authorization: `Bearer ${admin}`, 'accept-language': 'en' },
    });
    expect(csv.status).toBe(200);
    const lines = (await csv.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    const header = lines[0]?.split(',') ?? [];
    const column = header.indexOf('Labels');
    expect(column).toBeGreaterThan(0);
    expect(lines).toHaveLength(3);
    const aliceLine = lines.find((line) => line.includes(forAlice.id)) ?? '';
    expect(aliceLine).toContain('"Billing, VIP"');
    expect(lines.some((line) => line.includes(plain.id))).toBe(false);
  });

  it('escapes a label name a spreadsheet would run, in the CSV', async () => {
    const formula = await created({ name: '=HYPERLINK("x")', color: '#000000' });
    expect((await setLabels(forAlice.id, [formula])).status).toBe(200);
    const csv = await fetch(`${server.url}/api/history/export?label=${formula}`, {
      headers: { authorization: `Bearer ${admin}`, 'accept-language': 'en' },
    });
    const text = await csv.text();
    expect(text).toContain(`"'=HYPERLINK(""x"")"`);
    expect((await setLabels(forAlice.id, [vip, billing])).status).toBe(200);
    expect((await server.post('/api/label/doDelete', { ids: [formula] }, { token: keeper })).status).toBe(200);
  });

  it('counts conversations by label in the statistics, as JSON and as CSV', async () => {
    const stats = await server.get<CensusTalk>('/api/census/talk?dim=label', { token: admin });
    expect(stats.status).toBe(200);
    const byName = new Map(stats.body.data.list.map((row) => [row.name, row]));
    expect(byName.get('Billing')).toMatchObject({ conversations: 2, messages: 3, rated: 0, averageScore: null });
    expect(byName.get('VIP')).toMatchObject({ conversations: 1, messages: 2 });
    expect(byName.has('Complaint')).toBe(false);
    expect(stats.body.data.trend.length).toBe(7);
    // The list counts the labels of conversations begun within from..to only.
    const past = await server.get<CensusTalk>('/api/census/talk?dim=label&from=2020-01-01&to=2020-01-31', { token: admin });
    expect(past.body.data.list).toEqual([]);
    expect((await server.get('/api/census/talk?dim=label', { token: alice })).status).toBe(403);
    expect((await server.get('/api/census/flow?dim=label', { token: admin })).status).toBe(400);

    const csv = await fetch(`${server.url}/api/census/talk?dim=label&format=csv`, {
      headers: { authorization: `Bearer ${admin}`, 'accept-language': 'en' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const text = await csv.text();
    expect(text).toMatch(/Billing,2,3/);
    expect(text).toMatch(/VIP,1,2/);
  });

  it('takes a deleted label off every conversation: history, its filter and the statistics', async () => {
    expect((await server.post('/api/label/doDelete', { ids: [vip] }, { token: keeper })).status).toBe(200);
    const row = (await history('')).body.data.list.find((item) => item.YQToken === forAlice.id);
    expect(row?.labels.map((label) => label.name)).toEqual(['Billing']);
    expect((await history(`label=${vip}`)).body.data.list).toEqual([]);
    const stats = await server.get<CensusTalk>('/api/census/talk?dim=label', { token: admin });
    expect(stats.body.data.list.map((item) => item.name)).toEqual(['Billing']);
    const counted = (await labels()).body.data.list.find((label) => label.id === billing);
    expect(counted?.conversations).toBe(2);
  });
});
