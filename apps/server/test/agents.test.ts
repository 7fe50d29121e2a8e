import type { Agent } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;
let agentRoleId: number;
let adminRoleId: number;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  const roles = await server.get<{ list: { id: number; name: string }[] }>('/api/role/getList', { token: admin });
  agentRoleId = roles.body.data.list.find((role) => role.name === 'Agent')?.id ?? 0;
  adminRoleId = roles.body.data.list.find((role) => role.name === 'Admin')?.id ?? 0;
});
afterAll(() => server.close());

const list = (query = '') => server.get<{ list: Agent[]; total: number }>(`/api/service/getList${query}`, { token: admin });

describe('GET /api/service/getList', () => {
  it('lists agents with their fields, pages and filters', async () => {
    for (const name of ['page-a', 'page-b', 'page-c']) await createAgent(server, admin, { username: name });
    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body.data.total).toBeGreaterThanOrEqual(4);
    const first = all.body.data.list[0];
    expect(Object.keys(first ?? {}).sort()).toEqual(
      [
        'avatar',
        'created_at',
        'disabled',
        'id',
        'maxChats',
        'nickname',
        'pending',
        'presence',
        'roleId',
        'roleName',
        'state',
        'username',
        'uuid',
      ].sort(),
    );
    // Newest first (CONTRACT §7): the agent just made leads, the first administrator comes last.
    expect(first?.username).toBe('page-c');
    const firstAdmin = all.body.data.list.find((agent) => agent.username === 'admin');
    expect(all.body.data.list.at(-1)?.username).toBe('admin');
    expect(firstAdmin).toMatchObject({ username: 'admin', roleName: 'Admin', state: '0', presence: 'offline', disabled: false });
    expect(firstAdmin?.uuid).toMatch(/^[0-9a-f-]{36}$/);

    const page = await list('?pageNo=2&pageSize=2');
    expect(page.body.data.list).toHaveLength(2);
    expect(page.body.data.total).toBe(all.body.data.total);
    const filtered = await list('?username=PAGE-');
    expect(filtered.body.data.list.map((agent) => agent.username).sort()).toEqual(['page-a', 'page-b', 'page-c']);
    const byRole = await list(`?roleId=${adminRoleId}`);
    expect(byRole.body.data.list.every((agent) => agent.roleName === 'Admin')).toBe(true);
    const wildcard = await list('?username=%25');
    expect(wildcard.body.data.total).toBe(0);
  });

  it('rejects a page size over 100', async () => {
    const response = await list('?pageSize=101');
    expect(response.status).toBe(400);
    expect(response.body.msg).toContain('pageSize');
  });
});

describe('POST /api/service/doEdit', () => {
  it('creates an agent who can log in, and updates it', async () => {
    const created = await server.post<{ id: number }>(
      '/api/service/doEdit',
      { username: 'edit-me', nickname: 'Edit Me', password: 'first-pass-12', roleId: agentRoleId, maxChats: 3 },
      { token: admin },
    );
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    const token = await server.login('edit-me', 'first-pass-12');

    const updated = await server.post(
      '/api/service/doEdit',
      { id, username: 'edit-me', nickname: 'Renamed', roleId: agentRoleId, maxChats: 5 },
      { token: admin },
    );
    expect(updated.status).toBe(200);
    const row = (await list('?username=edit-me')).body.data.list[0];
    expect(row).toMatchObject({ nickname: 'Renamed', maxChats: 5 });
    // Without a password in the update, the old one stays and the session lives.
    expect((await server.get('/api/userInfo', { token })).status).toBe(200);
  });

  it('revokes the sessions of an agent whose password changes or who is disabled', async () => {
    const { id, token } = await createAgent(server, admin, { username: 'revoke-me', password: 'old-password' });
    await server.post(
      '/api/service/doEdit',
      { id, username: 'revoke-me', nickname: 'r', password: 'new-password', roleId: agentRoleId },
      { token: admin },
    );
    expect((await server.get('/api/userInfo', { token })).status).toBe(401);
    expect((await server.post('/api/login', { username: 'revoke-me', password: 'old-password' })).status).toBe(401);
    const second = await server.login('revoke-me', 'new-password');

    await server.post(
      '/api/service/doEdit',
      { id, username: 'revoke-me', nickname: 'r', roleId: agentRoleId, disabled: true },
      { token: admin },
    );
    expect((await server.get('/api/userInfo', { token: second })).status).toBe(401);
    const refused = await server.post('/api/login', { username: 'revoke-me', password: 'new-password' });
    expect(refused.status).toBe(401);
  });

  it('answers 400, 404 and 409 with clear messages', async () => {
    const noPassword = await server.post(
      '/api/service/doEdit',
      { username: 'no-pass', nickname: 'n', roleId: agentRoleId },
      { token: admin },
    );
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.msg).toBe('A password is required for a new agent');
    const badRole = await server.post(
      '/api/service/doEdit',
      { username: 'bad-role', nickname: 'n', password: 'secret-pass-1', roleId: 999 },
      { token: admin },
    );
    expect(badRole.status).toBe(400);
    expect(badRole.body.msg).toBe('Invalid field roleId: names something that does not exist');
    const badName = await server.post(
      '/api/service/doEdit',
      { username: 'has space', nickname: 'n', password: 'secret-pass-1', roleId: agentRoleId },
      { token: admin },
    );
    expect(badName.status).toBe(400);
    expect(badName.body.msg).toContain('username');
    const taken = await server.post(
      '/api/service/doEdit',
      { username: 'admin', nickname: 'n', password: 'secret-pass-1', roleId: agentRoleId },
      { token: admin },
    );
    expect(taken.status).toBe(409);
    const missing = await server.post(
      '/api/service/doEdit',
      { id: 9999, username: 'ghost', nickname: 'n', roleId: agentRoleId },
      { token: admin },
    );
    expect(missing.status).toBe(404);
    const script = await server.post(
      '/api/service/doEdit',
      { username: 'avatar-x', nickname: 'n', password: 'secret-pass-1', roleId: agentRoleId, avatar: 'javascript:alert(1)' },
      { token: admin },
    );
    expect(script.status).toBe(400);
    expect(script.body.msg).toContain('avatar');
  });

  it('never lets the last enabled administrator be demoted or disabled', async () => {
    const me = (await list('?username=admin')).body.data.list.find((agent) => agent.username === 'admin');
    const demote = await server.post(
      '/api/service/doEdit',
      { id: me?.id, username: 'admin', nickname: 'admin', roleId: agentRoleId },
      { token: admin },
    );
    expect(demote.status).toBe(409);
    expect(demote.body.msg).toBe('At least one enabled administrator must remain');
    expect((await server.get('/api/userInfo', { token: admin })).status).toBe(200);
    const selfDisable = await server.post(
      '/api/service/doEdit',
      { id: me?.id, username: 'admin', nickname: 'admin', roleId: adminRoleId, disabled: true },
      { token: admin },
    );
    expect(selfDisable.status).toBe(409);
  });
});

describe('POST /api/service/doDelete', () => {
  it('deletes agents and ends their sessions', async () => {
    const { id, token } = await createAgent(server, admin, { username: 'delete-me' });
    const deleted = await server.post('/api/service/doDelete', { ids: [id] }, { token: admin });
    expect(deleted.status).toBe(200);
    expect((await server.get('/api/userInfo', { token })).status).toBe(401);
    expect((await list('?username=delete-me')).body.data.total).toBe(0);
  });

  it('refuses to delete oneself or the last administrator', async () => {
    const me = (await list('?username=admin')).body.data.list.find((agent) => agent.username === 'admin');
    const self = await server.post('/api/service/doDelete', { ids: [me?.id] }, { token: admin });
    expect(self.status).toBe(409);
    expect(self.body.msg).toBe('You cannot delete your own account');

    const second = await createAgent(server, admin, { username: 'second-admin', role: 'Admin' });
    const other = await server.post('/api/service/doDelete', { ids: [me?.id] }, { token: second.token });
    expect(other.status).toBe(200);
    const last = await server.post('/api/service/doDelete', { ids: [second.id] }, { token: second.token });
    expect(last.status).toBe(409);
  });

  it('answers 400 for an empty or malformed id list', async () => {
    const token = await server.login('second-admin', 'agent-pass-1');
    expect((await server.post('/api/service/doDelete', { ids: [] }, { token })).status).toBe(400);
    expect((await server.post('/api/service/doDelete', { ids: ['abc'] }, { token })).status).toBe(400);
  });
});
