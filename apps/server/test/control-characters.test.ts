import type { LoginRecord, Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onlyId, visitor } from './chat-harness.js';
import { type ApiResponse, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;
let visitorToken: string;
let visitorId: string;
let roleId: number;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMITS: 'register.address=1000/3600,visitorLetter.address=1000/3600' });
  admin = await server.login();
  const v = await visitor(server);
  visitorToken = v.credential;
  visitorId = v.id;
  v.socket.close();
  const roles = await server.get<{ list: { id: number; name: string }[] }>('/api/role/getList', { token: admin });
  const agentRole = roles.body.data.list.find((role) => role.name === 'Agent');
  if (!agentRole) throw new Error('no Agent role');
  roleId = agentRole.id;
});
afterAll(() => server.close());

let unique = 0;
const next = () => {
  unique += 1;
  return `u${unique}x${Date.now().toString(36)}`;
};

/** Characters that no name, address or message needs; NUL is the one PostgreSQL refuses to store. */
const CONTROLS = {
  NUL: '\u0000',
  BEL: '\u0007',
  ESC: '\u001b',
  DEL: '\u007f',
  NEL: '\u0085',
};
/** Line breaks, tabs and bidi overrides may belong in a message (right-to-left text), never in a one-line field. */
const BREAKS = { LF: '\n', TAB: '\t', LS: '\u2028', RLO: '\u202e' };

interface Case {
  route: string;
  field: string;
  /** Sends the request with `value` in the field under test. */
  send(value: string): Promise<ApiResponse>;
  multiline?: boolean;
}

const post =
  (path: string, body: (value: string) => Record<string, unknown>, agent = false) =>
  (value: string) =>
    server.post(path, body(value), agent ? { token: admin } : {});
const get = (path: string, field: string) => (value: string) =>
  server.get(`${path}?${new URLSearchParams({ [field]: `a${value}b` })}`, { token: admin });

const cases: Case[] = [
  { route: 'POST /api/login', field: 'username', send: post('/api/login', (v) => ({ username: `ad${v}min`, password: 'admin-pass-1' })) },
  { route: 'POST /api/login', field: 'password', send: post('/api/login', (v) => ({ username: 'admin', password: `admin-${v}pass-1` })) },
  {
    route: 'POST /api/register',
    field: 'username',
    send: post('/api/register', (v) => ({ username: `${next()}${v}x`, password: 'Quiet-river-8812', nickname: 'N' })),
  },
  {
    route: 'POST /api/register',
    field: 'password',
    send: post('/api/register', (v) => ({ username: next(), password: `Quiet-${v}river-8812`, nickname: 'N' })),
  },
  {
    route: 'POST /api/register',
    field: 'nickname',
    send: post('/api/register', (v) => ({ username: next(), password: 'Quiet-river-8812', nickname: `Nick${v}name` })),
  },
  ...(['username', 'nickname', 'password', 'avatar'] as const).map(
    (field): Case => ({
      route: 'POST /api/service/doEdit',
      field,
      send: post(
        '/api/service/doEdit',
        (v) => {
          const body: Record<string, unknown> = {
            username: next(),
            nickname: 'Agent',
            password: 'Quiet-river-8812',
            roleId,
            avatar: '/a.png',
          };
          body[field] = `${String(body[field])}${v}x`;
          return body;
        },
        true,
      ),
    }),
  ),
  { route: 'GET /api/service/getList', field: 'username', send: get('/api/service/getList', 'username') },
  {
    route: 'POST /api/role/doEdit',
    field: 'name',
    send: post('/api/role/doEdit', (v) => ({ name: `${next()}${v}x`, permissions: [] }), true),
  },
  { route: 'GET /api/role/getList', field: 'name', send: get('/api/role/getList', 'name') },
  { route: 'GET /api/role/getList', field: 'role', send: get('/api/role/getList', 'role') },
  { route: 'GET /api/record/getList', field: 'username', send: get('/api/record/getList', 'username') },
  { route: 'GET /api/record/getList', field: 'account', send: get('/api/record/getList', 'account') },
  { route: 'GET /api/search/getList', field: 'keyword', send: get('/api/search/getList', 'keyword') },
  ...(['url', 'title', 'referrer', 'lang'] as const).map(
    (field): Case => ({
      route: 'POST /api/visitor/init',
      field,
      send: post('/api/visitor/init', (v) => {
        const body: Record<string, string> = { url: 'https://shop.example/', title: 'Shop', referrer: 'https://ref.example/', lang: 'en' };
        body[field] = `${body[field]}${v}x`;
        return body;
      }),
    }),
  ),
  {
    route: 'POST /api/visitor/message',
    field: 'msg',
    multiline: true,
    send: post('/api/visitor/message', (v) => ({ YQToken: visitorToken, msg: `hi${v}there`, onlyID: onlyId() })),
  },
  ...(['url', 'title'] as const).map(
    (field): Case => ({
      route: 'POST /api/visitor/visit',
      field,
      send: post('/api/visitor/visit', (v) => {
        const body: Record<string, string> = { YQToken: visitorToken, url: 'https://shop.example/a', title: 'A' };
        body[field] = `${body[field]}${v}x`;
        return body;
      }),
    }),
  ),
  ...(['name', 'phone', 'email', 'content'] as const).map(
    (field): Case => ({
      route: 'POST /api/visitor/letter',
      field,
      multiline: field === 'content',
      send: post('/api/visitor/letter', (v) => {
        const body: Record<string, string> = { name: 'Ann', phone: '+1 555', email: 'ann@example.com', content: 'Call me' };
        body[field] = field === 'email' ? `ann${v}@example.com` : `${body[field]}${v}1`;
        return body;
      }),
    }),
  ),
  {
    route: 'POST /api/visitor/rate',
    field: 'comment',
    multiline: true,
    send: post('/api/visitor/rate', (v) => ({ YQToken: visitorToken, score: 5, comment: `good${v}job` })),
  },
  {
    route: 'POST /api/talk/send',
    field: 'msg',
    multiline: true,
    send: post('/api/talk/send', (v) => ({ YQToken: visitorId, msg: `hello${v}there`, onlyID: onlyId() }), true),
  },
];

describe('control characters in text fields', () => {
  it.each(cases)('$route answers 400 naming $field for every control character', async ({ field, send, multiline }) => {
    const controls: Record<string, string> = multiline ? CONTROLS : { ...CONTROLS, ...BREAKS };
    const answers: string[] = [];
    for (const [name, character] of Object.entries(controls)) {
      const response = await send(character);
      answers.push(`${name}:${response.status}`);
      if (response.status === 400) expect(response.body.msg, name).toContain(field);
    }
    expect(answers).toEqual(Object.keys(controls).map((name) => `${name}:400`));
  });

  it('lets messages keep line breaks, tabs, emoji and CJK', async () => {
    const msg = 'Line one\r\nline two\n\tindented 👩‍💻 你好，世界 مرحبا';
    const response = await server.post<Message>('/api/visitor/message', { YQToken: visitorToken, msg, onlyID: onlyId() });
    expect(response.status).toBe(200);
    expect(response.body.data.msg).toBe(msg);
    const named = await server.post('/api/visitor/init', { url: 'https://shop.example/', title: '价格 👩‍💻 Prices' });
    expect(named.status).toBe(200);
  });

  it('stores an upload whose file name holds control characters under a name cleaned of them', async () => {
    const form = new FormData();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    form.append('file', new Blob([png]), 'cat\u0000\u001b\u202e.png');
    const response = await fetch(`${server.url}/api/visitor/upload?YQToken=${visitorToken}`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: { url: string; name: string } };
    expect(data.name).toBe('cat.png');
    expect((await fetch(`${server.url}${data.url}`)).status).toBe(200);
  });

  it('writes a refused login to the login log with the control characters replaced', async () => {
    const response = await server.post('/api/login', { username: 'ghost\u0000\u001bname', password: 'whatever-1' });
    expect(response.status).toBe(400);
    expect(response.body.msg).toContain('username');
    const records = await server.get<{ list: LoginRecord[] }>('/api/record/getList?username=ghost', { token: admin });
    expect(records.body.data.list).toEqual([
      expect.objectContaining({ username: 'ghost\uFFFD\uFFFDname', result: 'failure', reason: 'invalid_input' }),
    ]);
  });
});
