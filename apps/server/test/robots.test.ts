import { randomBytes } from 'node:crypto';
import type { RobotAsk, RobotHighAnswer, RobotHighSettings, RobotImportResult, RobotTryResult } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, createAgent, startTestServer, type TestServer } from './harness.js';
import { dropSchema } from './processes.js';
import { waitFor } from './waiting.js';

let server: TestServer;
/** An agent whose role holds setPermissions:robotSettings only. */
let keeper: string;
/** An agent whose role holds another permission only. */
let outsider: string;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  await server.post('/api/role/doEdit', { name: 'Robots', permissions: ['setPermissions:robotSettings'] }, { token: admin });
  await server.post('/api/role/doEdit', { name: 'Links only', permissions: ['seePermissions:link'] }, { token: admin });
  keeper = (await createAgent(server, admin, { username: 'robot-keeper', role: 'Robots' })).token ?? '';
  outsider = (await createAgent(server, admin, { username: 'robot-outsider', role: 'Links only' })).token ?? '';
});
afterAll(() => server.close());

const list = (query = '') => server.get<{ list: RobotAsk[]; total: number }>(`/api/robot/ask/getList${query}`, { token: keeper });
const save = (body: Record<string, unknown>, token = keeper) => server.post<{ id: number }>('/api/robot/ask/doEdit', body, { token });
const ask = (text: string) => server.post<RobotTryResult>('/api/robot/try', { text }, { token: keeper });

function upload(csv: string | Buffer, token = keeper) {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'pairs.csv');
  return fetch(`${server.url}/api/robot/ask/import`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' },
  });
}

describe('robot routes and who may call them', () => {
  it('answer 401 without a token and 403 without setPermissions:robotSettings', async () => {
    expect((await server.get('/api/robot/ask/getList')).status).toBe(401);
    for (const [method, path, body] of [
      ['GET', '/api/robot/ask/getList', undefined],
      ['POST', '/api/robot/ask/doEdit', { questions: ['x'], answer: 'y' }],
      ['POST', '/api/robot/ask/doDelete', { ids: [1] }],
      ['GET', '/api/robot/ask/export', undefined],
      ['POST', '/api/robot/try', { text: 'x' }],
      ['GET', '/api/robot/high', undefined],
      ['POST', '/api/robot/high', {}],
    ] as const) {
      const answer = method === 'GET' ? await server.get(path, { token: outsider }) : await server.post(path, body, { token: outsider });
      expect(answer.status, path).toBe(403);
    }
    expect((await upload('question,answer\na,b\n', outsider)).status).toBe(403);
  });
});

describe('POST /api/robot/ask/doEdit', () => {
  it('names the offending field', async () => {
    const noQuestion = await save({ questions: [], answer: 'Hello' });
    expect(noQuestion.status).toBe(400);
    expect(noQuestion.body.msg).toMatch(/^Invalid field questions:/);
    const noAnswer = await save({ questions: ['Hi'], answer: '  ' });
    expect(noAnswer.status).toBe(400);
    expect(noAnswer.body.msg).toMatch(/^Invalid field answer:/);
    expect((await save({ id: 999999, questions: ['Hi'], answer: 'Hello' })).status).toBe(404);
  });

  it('stores a pair, finds it by keyword, category and state, updates and deletes it', async () => {
    const created = await save({
      questions: ['How do I reset my password?', 'I forgot my password'],
      answer: 'Click "Forgot password" on the sign-in page.',
      category: 'account',
      image: 'https://example.com/reset.png',
    });
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    const [pair] = (await list('?keyword=FORGOT')).body.data.list;
    expect(pair).toEqual({
      id,
      questions: ['How do I reset my password?', 'I forgot my password'],
      answer: 'Click "Forgot password" on the sign-in page.',
      image: 'https://example.com/reset.png',
      category: 'account',
      enabled: true,
      hits: 0,
      assists: 0,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect((await list('?keyword=sign-in')).body.data.list.map((p) => p.id)).toContain(id);
    expect((await list('?category=account')).body.data.list.map((p) => p.id)).toContain(id);
    expect((await list('?category=nothing')).body.data.total).toBe(0);

    await save({ id, questions: ['How do I reset my password?'], answer: 'Use the link.', category: 'account', enabled: false });
    expect((await list('?enabled=false')).body.data.list.map((p) => p.id)).toContain(id);
    expect((await list('?enabled=true')).body.data.list.map((p) => p.id)).not.toContain(id);
    expect((await ask('I forgot my password')).body.data).toBeNull();

    expect((await server.post('/api/robot/ask/doDelete', { ids: [id] }, { token: keeper })).status).toBe(200);
    expect((await list('?keyword=reset')).body.data.list.map((p) => p.id)).not.toContain(id);
  });
});

describe('POST /api/robot/try', () => {
  beforeAll(async () => {
    for (const pair of [
      { questions: ['When will my order ship?', 'How long does shipping take?'], answer: 'Within one business day.' },
      { questions: ['How do I get a refund?', 'I want my money back'], answer: 'Orders > Return, within 30 days.' },
      { questions: ['How do I change my password?'], answer: 'Account > Security.' },
      { questions: ['怎么开发票？', '可以开发票吗？'], answer: '在订单详情页点击“申请发票”。' },
      { questions: ['退款多久到账？', '退款什么时候能收到？'], answer: '1-3 个工作日原路退回。' },
      { questions: ['怎么修改密码？'], answer: '账户设置-安全-修改密码。' },
    ]) {
      expect((await save(pair)).status).toBe(200);
    }
  });

  it('matches an English paraphrase, whatever its case, width and punctuation', async () => {
    const answer = await ask('Can I have my MONEY BACK please！！');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ question: 'I want my money back', answer: 'Orders > Return, within 30 days.' });
    expect(answer.body.data?.score).toBeGreaterThanOrEqual(0.5);
    expect(answer.body.data?.score).toBeLessThan(1);
    expect((await ask('shipping takes how long?')).body.data).toMatchObject({ answer: 'Within one business day.' });
    expect((await ask('ｗｈｅｎ　ｗｉｌｌ　ｍｙ　ｏｒｄｅｒ　ｓｈｉｐ？')).body.data).toMatchObject({
      question: 'When will my order ship?',
      score: 1,
    });
  });

  it('matches a Chinese paraphrase by its words', async () => {
    expect((await ask('需要开发票')).body.data).toMatchObject({ answer: '在订单详情页点击“申请发票”。' });
    expect((await ask('退款几天到账')).body.data).toMatchObject({ answer: '1-3 个工作日原路退回。' });
  });

  it('answers null under the threshold, and the closest pairs as suggestions', async () => {
    const high = (await server.get<RobotHighSettings>('/api/robot/high', { token: keeper })).body.data;
    expect((await ask('what is the weather like on mars')).body.data).toBeNull();
    await server.post('/api/robot/high', { ...high, threshold: 1 }, { token: keeper });
    try {
      expect((await ask('how can i change the password of my account')).body.data).toBeNull();
    } finally {
      await server.post('/api/robot/high', { ...high, threshold: 0.5 }, { token: keeper });
    }
    const answer = (await ask('password')).body.data;
    expect(answer?.suggestions.map((s) => s.answer)).not.toContain(answer?.answer);
    expect(answer?.suggestions.length).toBeLessThanOrEqual(3);
  });

  it('follows an edit, a disabled pair and a deletion at once', async () => {
    // The index is built by now (earlier questions); each change must reach it without a restart.
    const created = await save({ questions: ['Do you sell gift cards?'], answer: 'Yes, from $10.' });
    const id = created.body.data?.id;
    expect((await ask('do you sell gift cards')).body.data).toMatchObject({ id, answer: 'Yes, from $10.' });
    // The edit changes what the pair is about (a voucher would still mean a gift card to the robot).
    await save({ id, questions: ['Can I buy a voucher for a friend?'], answer: 'Yes, vouchers from $10.' });
    expect((await ask('buy a voucher for a friend')).body.data).toMatchObject({ id, answer: 'Yes, vouchers from $10.' });
    await save({ id, questions: ['Can I bring my dog?'], answer: 'Dogs are welcome.' });
    expect((await ask('do you sell gift cards')).body.data?.id).not.toBe(id);
    await save({ id, questions: ['Can I buy a voucher for a friend?'], answer: 'Yes, vouchers from $10.' });
    await save({ id, questions: ['Can I buy a voucher for a friend?'], answer: 'Yes, vouchers from $10.', enabled: false });
    expect((await ask('buy a voucher for a friend')).body.data?.id).not.toBe(id);
    await save({ id, questions: ['Can I buy a voucher for a friend?'], answer: 'Yes, vouchers from $10.', enabled: true });
    expect((await ask('buy a voucher for a friend')).body.data?.id).toBe(id);
    expect((await server.post('/api/robot/ask/doDelete', { ids: [id] }, { token: keeper })).status).toBe(200);
    expect((await ask('buy a voucher for a friend')).body.data?.id).not.toBe(id);
  });

  it('does not count a hit', async () => {
    await ask('How do I get a refund?');
    const [pair] = (await list('?keyword=refund')).body.data.list;
    expect(pair?.hits).toBe(0);
  });
});

describe('POST /api/robot/ask/import and GET /api/robot/ask/export', () => {
  it('imports the good rows, reports the bad ones by line, updates pairs by their first phrasing, and exports what it read', async () => {
    const csv =
      '\uFEFFquestion,answer,category,enabled\n' +
      '"Do you ship abroad?\nCan you deliver to other countries?",Yes to 60 countries.,shipping,true\n' +
      'Is there a free trial?,,pricing,true\n' +
      '什么时候发货？,24 小时内发货。,发货,\n' +
      '\n' +
      'Can I pay with PayPal?,Yes.,payments,maybe\n' +
      '"=1+1 question",-a formula-like answer,,false\n';
    const first = await upload(csv);
    expect(first.status).toBe(200);
    const result = ((await first.json()) as { data: RobotImportResult }).data;
    expect(result.created).toBe(3);
    expect(result.updated).toBe(0);
    expect(result.errors).toEqual([
      { line: 4, message: expect.stringMatching(/^Invalid field answer:/) },
      { line: 7, message: 'Invalid field enabled: must be true or false' },
    ]);
    const [abroad] = (await list('?keyword=abroad')).body.data.list;
    expect(abroad).toMatchObject({
      questions: ['Do you ship abroad?', 'Can you deliver to other countries?'],
      category: 'shipping',
      enabled: true,
    });

    const again = await upload('question,answer\nDo you ship abroad?,Now to 80 countries.\n');
    expect(((await again.json()) as { data: RobotImportResult }).data).toEqual({ created: 0, updated: 1, errors: [] });
    expect((await list('?keyword=abroad')).body.data.list[0]?.answer).toBe('Now to 80 countries.');

    const exported = await fetch(`${server.url}/api/robot/ask/export`, { headers: { authorization: `Bearer ${keeper}` } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const bytes = Buffer.from(await exported.arrayBuffer());
    expect(bytes.subarray(0, 3).toString('hex')).toBe('efbbbf');
    const text = bytes.toString('utf8');
    expect(text).toContain("'=1+1 question");
    expect(text).toContain("'-a formula-like answer");

    // The export, imported again, changes nothing and loses nothing.
    const before = (await list('?pageSize=100')).body.data;
    const round = await upload(Buffer.from(text, 'utf8'));
    const roundResult = ((await round.json()) as { data: RobotImportResult }).data;
    expect(roundResult).toEqual({ created: 0, updated: before.total, errors: [] });
    const after = (await list('?pageSize=100')).body.data;
    const shape = (pairs: RobotAsk[]) =>
      pairs.map(({ id, questions, answer, category, enabled, image }) => ({ id, questions, answer, category, enabled, image }));
    expect(shape(after.list)).toEqual(shape(before.list));
  });

  it('refuses a file without the header, and one that is not CSV', async () => {
    const noHeader = await upload('Hello?,Hi.\n');
    expect(noHeader.status).toBe(400);
    expect(((await noHeader.json()) as { msg: string }).msg).toBe(
      'The first line of the CSV must be a header with the columns question and answer',
    );
    const broken = await upload('question,answer\n"open quote,never closed\n');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { msg: string }).msg).toMatch(/^The CSV is malformed at line/);
  });
});

describe('GET/POST /api/robot/high', () => {
  it('answers the defaults, validates, and never answers the language model key', async () => {
    const defaults = await server.get<RobotHighSettings>('/api/robot/high', { token: keeper });
    expect(defaults.body.data).toMatchObject({ enabled: false, mode: 'offline', threshold: 0.5, handoverAfterUnknown: 3 });
    const bad = await server.post('/api/robot/high', { ...defaults.body.data, threshold: 2 }, { token: keeper });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/^Invalid field threshold:/);
    const badMode = await server.post('/api/robot/high', { mode: 'always' }, { token: keeper });
    expect(badMode.body.msg).toMatch(/^Invalid field mode:/);

    const llm = { enabled: true, baseUrl: 'https://llm.example/v1', model: 'small', apiKey: 'sk-secret', timeoutMs: 5000 };
    // A model URL that carries a key is the Admin's to set; the robot keeper may change everything else.
    const keyed = await server.post('/api/robot/high', { ...defaults.body.data, name: 'Ada', llm }, { token: keeper });
    expect(keyed.status).toBe(403);
    const saved = await server.post<RobotHighSettings>('/api/robot/high', { ...defaults.body.data, name: 'Ada', llm }, { token: admin });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ name: 'Ada', llm: { ...llm, apiKey: '' } });
    expect(JSON.stringify((await server.get('/api/robot/high', { token: keeper })).body)).not.toContain('sk-secret');

    // Saved again without the key (as the form sends it): the stored key stays.
    await server.post('/api/robot/high', { ...saved.body.data, name: 'Ada 2' }, { token: keeper });
    const stored = await server.storage.db.selectFrom('settings').select('value').where('page', '=', 'robotHigh').executeTakeFirstOrThrow();
    expect(JSON.parse(stored.value)).toMatchObject({ name: 'Ada 2', llm: { apiKey: expect.stringMatching(/^sealed:v1:/) } });
    expect(stored.value).not.toContain('sk-secret');
    expect((await server.get<RobotHighAnswer>('/api/robot/high', { token: keeper })).body.data.llm.hasApiKey).toBe(true);
  });

  it('tells whether a language model key is stored, without telling the key', async () => {
    const fresh = await startTestServer();
    try {
      const token = await fresh.login();
      const high = () => fresh.get<RobotHighAnswer>('/api/robot/high', { token });
      expect((await high()).body.data.llm).toMatchObject({ apiKey: '', hasApiKey: false });
      // An endpoint without a key: nothing is stored to keep.
      const llm = { enabled: true, baseUrl: 'https://llm.example/v1', model: 'small', apiKey: '', timeoutMs: 5000 };
      const keyless = await fresh.post<RobotHighAnswer>('/api/robot/high', { llm }, { token });
      expect(keyless.body.data.llm).toMatchObject({ baseUrl: 'https://llm.example/v1', apiKey: '', hasApiKey: false });
      const keyed = await fresh.post<RobotHighAnswer>('/api/robot/high', { llm: { ...llm, apiKey: 'sk-other' } }, { token });
      expect(keyed.body.data.llm).toMatchObject({ apiKey: '', hasApiKey: true });
      // The answer sent back as it came (the flag included) keeps the key.
      const again = await fresh.post<RobotHighAnswer>('/api/robot/high', keyed.body.data, { token });
      expect(again.status).toBe(200);
      expect((await high()).body.data.llm).toMatchObject({ apiKey: '', hasApiKey: true });
      expect(JSON.stringify((await high()).body)).not.toContain('sk-other');
    } finally {
      await fresh.close();
    }
  });
});

// Several processes need a shared database server and Redis: this runs where the CI variables provide them.
describe.runIf(backends.postgres && backends.redis)('the robot index of two server processes', () => {
  const schema = `rb_${randomBytes(6).toString('hex')}`;
  const shared = { DATABASE_SCHEMA: schema, REDIS_PREFIX: `parley-${schema}` };
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer(shared);
    b = await startTestServer(shared);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await dropSchema(schema);
  });

  it('follows a pair edited, disabled and deleted in the other process', async () => {
    const adminA = await a.login();
    const adminB = await b.login();
    const askB = async (text: string) => (await b.post<RobotTryResult>('/api/robot/try', { text }, { token: adminB })).body.data;
    const created = await a.post<{ id: number }>(
      '/api/robot/ask/doEdit',
      { questions: ['Do you sell gift cards?'], answer: 'Yes.' },
      { token: adminA },
    );
    const id = created.body.data?.id;
    // B builds its index now; what follows must reach it through the bus, without a restart.
    expect((await askB('do you sell gift cards'))?.id).toBe(id);
    const edit = { id, questions: ['Can I buy a voucher for a friend?'], answer: 'Yes, vouchers.' };
    await a.post('/api/robot/ask/doEdit', edit, { token: adminA });
    await waitFor(async () => (await askB('buy a voucher for a friend'))?.answer === 'Yes, vouchers.', 5000, 'the edit in B');
    await a.post('/api/robot/ask/doEdit', { ...edit, enabled: false }, { token: adminA });
    await waitFor(async () => (await askB('buy a voucher for a friend'))?.id !== id, 5000, 'the disabled pair gone from B');
    await a.post('/api/robot/ask/doEdit', { ...edit, enabled: true }, { token: adminA });
    await waitFor(async () => (await askB('buy a voucher for a friend'))?.id === id, 5000, 'the pair back in B');
    await a.post('/api/robot/ask/doDelete', { ids: [id] }, { token: adminA });
    await waitFor(async () => (await askB('buy a voucher for a friend'))?.id !== id, 5000, 'the deleted pair gone from B');
  });
});
