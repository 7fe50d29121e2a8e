import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { APP_ROOT, createAgent, startTestServer, type TestServer } from './harness.js';

// CONTRACT §3: new passwords have at least 8 characters and are not common (400 naming the field).
const COMMON = ['password', '12345678', 'qwertyuiop', 'iloveyou', 'Password1', 'sunshine1', 'FOOTBALL'];

let server: TestServer;
let admin: string;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMITS: 'register.address=100/3600' });
  admin = await server.login();
});
afterAll(() => server.close());

describe('POST /api/register', () => {
  it('refuses common passwords, whatever their case, with 400 naming the field', async () => {
    const answers = await Promise.all(
      COMMON.map((password, i) => server.post('/api/register', { username: `common-${i}`, password }, { lang: 'en' })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(COMMON.map(() => 400));
    expect(answers[0]?.body.msg).toBe('Invalid field password: is too common, choose one that is harder to guess');
    const zh = await server.post('/api/register', { username: 'common-zh', password: 'qwertyuiop' }, { lang: 'zh' });
    expect(zh.body.msg).toBe('字段 password 无效：过于常见，请换一个更难猜的密码');
  });

  it('refuses passwords shorter than 8 characters and accepts an uncommon one of 8', async () => {
    const short = await server.post('/api/register', { username: 'short-7', password: 'x7#kq2p' }, { lang: 'en' });
    expect(short.status).toBe(400);
    expect(short.body.msg).toBe('Invalid field password: must be at least 8 long');
    expect((await server.post('/api/register', { username: 'long-8', password: 'x7#kq2pz' })).status).toBe(200);
  });
});

describe('POST /api/service/doEdit', () => {
  it('refuses a short or common password for a new agent and for an edit', async () => {
    const roles = await server.get<{ list: { id: number; name: string }[] }>('/api/role/getList', { token: admin });
    const roleId = roles.body.data.list.find((role) => role.name === 'Agent')?.id;
    const create = (password: string) =>
      server.post('/api/service/doEdit', { username: 'pw-new', nickname: 'n', password, roleId }, { token: admin, lang: 'en' });
    expect((await create('password1')).status).toBe(400);
    expect((await create('abc1234')).status).toBe(400);
    const { id } = await createAgent(server, admin, { username: 'pw-edit', password: 'pw-edit-pass-1' });
    const edit = await server.post(
      '/api/service/doEdit',
      { id, username: 'pw-edit', nickname: 'n', password: 'iloveyou', roleId },
      { token: admin, lang: 'en' },
    );
    expect(edit.status).toBe(400);
    expect(edit.body.msg).toContain('password');
    expect((await server.post('/api/login', { username: 'pw-edit', password: 'pw-edit-pass-1' })).status).toBe(200);
  });
});

describe('ADMIN_PASSWORD', () => {
  it('must be at least 8 characters and not common', () => {
    const config = (password: string) => () => loadConfig({ ADMIN_PASSWORD: password }, APP_ROOT);
    expect(config('short12')).toThrow(ConfigError);
    expect(config('password123')).toThrow(ConfigError);
    expect(config('admin-pass-1')()).toMatchObject({ adminPassword: 'admin-pass-1' });
  });
});
