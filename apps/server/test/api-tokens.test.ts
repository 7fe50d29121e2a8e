import type { ApiToken, AuditEntry, Role } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createAgent, type ManualClock, manualClock, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let clock: ManualClock;
let admin: string;
/** Holds `setPermissions:access` and `seePermissions:statistics` only. */
let integrator: string;

beforeAll(async () => {
  clock = manualClock();
  server = await startTestServer({ RATE_LIMITS: 'apiToken.token=20/60' }, { authNow: clock.now });
  admin = await server.login();
  const role = await server.post(
    '/api/role/doEdit',
    { name: 'Integrator', permissions: ['setPermissions:access', 'seePermissions:statistics'] },
    { token: admin },
  );
  expect(role.status).toBe(200);
  integrator = (await createAgent(server, admin, { username: 'integrator', role: 'Integrator' })).token ?? '';
});
afterAll(() => server.close());

async function makeToken(by: string, body: Record<string, unknown>) {
  return server.post<{ id: number; token: string }>('/api/apiToken/doEdit', body, { token: by });
}

async function auditOf(action: string): Promise<AuditEntry[]> {
  const response = await server.get<{ list: AuditEntry[] }>(`/api/audit/getList?action=${action}&pageSize=100`, { token: admin });
  return response.body.data.list;
}

describe('API tokens', () => {
  it('is shown once, stored hashed, listed without its secret, and acts with its grants', async () => {
    const made = await makeToken(integrator, { name: 'CRM', permissions: ['seePermissions:statistics'] });
    expect(made.status).toBe(200);
    const { id, token } = made.body.data;
    expect(token).toMatch(/^pat_[\w-]{40,}$/);

    const stored = await server.storage.db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(token.slice(4));

    const list = await server.get<{ list: ApiToken[] }>('/api/apiToken/getList', { token: integrator });
    const row = list.body.data.list.find((item) => item.id === id);
    expect(row).toMatchObject({ name: 'CRM', permissions: ['seePermissions:statistics'], createdBy: 'integrator', lastUsedAt: null });
    expect(JSON.stringify(list.body)).not.toContain(token);

    // Its grant opens statistics; what it was not given stays shut, though its creator holds it.
    const census = await server.get('/api/census/service?kind=talk', { token });
    expect(census.status).toBe(200);
    expect((await server.get('/api/access', { token })).status).toBe(403);
    expect((await server.get('/api/service/getList', { token })).status).toBe(403);

    const after = await server.get<{ list: ApiToken[] }>('/api/apiToken/getList', { token: integrator });
    expect(after.body.data.list.find((item) => item.id === id)?.lastUsedAt).toEqual(expect.any(String));
  });

  it('refuses grants its creator does not hold, and Admin from anyone but an Admin', async () => {
    const beyond = await makeToken(integrator, { name: 'too much', permissions: ['seePermissions:seeHistorical'] });
    expect(beyond.status).toBe(403);
    const adminGrant = await makeToken(integrator, { name: 'admin', permissions: ['Admin'] });
    expect(adminGrant.status).toBe(403);
    const byAdmin = await makeToken(admin, { name: 'ops', permissions: ['Admin'] });
    expect(byAdmin.status).toBe(200);
    expect((await server.get('/api/audit/getList', { token: byAdmin.body.data.token })).status).toBe(200);
  });

  it('validates its input, naming the field', async () => {
    const noName = await makeToken(integrator, { name: '', permissions: ['seePermissions:statistics'] });
    expect(noName.status).toBe(400);
    expect(noName.body.msg).toContain('name');
    const unknown = await makeToken(integrator, { name: 'x', permissions: ['seePermissions:everything'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.msg).toContain('permissions');
    const past = await makeToken(integrator, { name: 'x', permissions: ['seePermissions:statistics'], expiresAt: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.msg).toContain('expiresAt');
  });

  it('loses at each call what its creator lost, and everything when the creator is disabled', async () => {
    const grants = ['setPermissions:access', 'seePermissions:statistics'];
    const role = await server.post('/api/role/doEdit', { name: 'Shrinking', permissions: grants }, { token: admin });
    const agent = await createAgent(server, admin, { username: 'shrinking', role: 'Shrinking' });
    const { token } = (await makeToken(agent.token ?? '', { name: 't', permissions: ['seePermissions:statistics'] })).body.data;
    expect((await server.get('/api/census/service?kind=talk', { token })).status).toBe(200);

    const roles = await server.get<{ list: Role[] }>('/api/role/getList?pageSize=100', { token: admin });
    const roleId = roles.body.data.list.find((item) => item.name === 'Shrinking')?.id;
    expect(role.status).toBe(200);
    await server.post('/api/role/doEdit', { id: roleId, name: 'Shrinking', permissions: ['setPermissions:access'] }, { token: admin });
    expect((await server.get('/api/census/service?kind=talk', { token })).status).toBe(403);

    await server.post('/api/role/doEdit', { id: roleId, name: 'Shrinking', permissions: grants }, { token: admin });
    expect((await server.get('/api/census/service?kind=talk', { token })).status).toBe(200);
    await server.post(
      '/api/service/doEdit',
      { id: agent.id, username: 'shrinking', nickname: 'shrinking', roleId, disabled: true },
      { token: admin },
    );
    expect((await server.get('/api/census/service?kind=talk', { token })).status).toBe(401);
  });

  it('stops at once when revoked, and when it expires', async () => {
    const revoked = (await makeToken(integrator, { name: 'revoked', permissions: ['seePermissions:statistics'] })).body.data;
    expect((await server.get('/api/census/service?kind=talk', { token: revoked.token })).status).toBe(200);
    const deleted = await server.post('/api/apiToken/doDelete', { ids: [revoked.id] }, { token: integrator });
    expect(deleted.status).toBe(200);
    expect((await server.get('/api/census/service?kind=talk', { token: revoked.token })).status).toBe(401);
    const list = await server.get<{ list: ApiToken[] }>('/api/apiToken/getList', { token: integrator });
    expect(list.body.data.list.some((item) => item.id === revoked.id)).toBe(false);

    const expiresAt = new Date(clock.now() + 3600_000).toISOString();
    const expiring = (await makeToken(integrator, { name: 'hour', permissions: ['seePermissions:statistics'], expiresAt })).body.data;
    expect((await server.get('/api/census/service?kind=talk', { token: expiring.token })).status).toBe(200);
    clock.advance(3601_000);
    const late = await server.get('/api/census/service?kind=talk', { token: expiring.token });
    expect(late.status).toBe(401);
    expect(late.body.msg).toMatch(/expired/i);
  });

  it('cannot touch its creator’s account, make tokens, or open a socket', async () => {
    const { token } = (await makeToken(admin, { name: 'all', permissions: ['Admin'] })).body.data;
    for (const [path, body] of [
      ['/api/apiToken/doEdit', { name: 'child', permissions: ['seePermissions:statistics'] }],
      ['/api/personal/sessions/revoke', { ids: [1] }],
      ['/api/personal/mfa/setup', {}],
      ['/api/personal', { nickname: 'x', avatar: '', notify: { newUser: true, newMsg: true, sound: true } }],
    ] as const) {
      const refused = await server.post(path, body, { token });
      expect(refused.status, path).toBe(403);
    }
    expect((await server.get('/api/personal/sessions', { token })).status).toBe(403);
    expect((await server.get('/api/login/logOut', { token })).status).toBe(403);

    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws/agent?token=${token}`);
    const code = await new Promise<number>((resolve) => ws.on('close', (closeCode) => resolve(closeCode)));
    expect(code).toBe(4401);
  });

  it('records every write it makes in the audit log, and its making and revoking', async () => {
    const made = (await makeToken(admin, { name: 'writer', permissions: ['setPermissions:friendly'] })).body.data;
    const saved = await server.post('/api/friendly/doEdit', { name: 'Partner Ltd' }, { token: made.token });
    expect(saved.status).toBe(200);
    const uses = await auditOf('token.use');
    expect(uses.find((entry) => entry.target === `token:${made.id}`)).toMatchObject({
      actor: 'admin',
      detail: { name: 'writer', route: 'POST /api/friendly/doEdit' },
    });
    // A read is not a write.
    await server.get('/api/friendly/getList', { token: made.token });
    expect((await auditOf('token.use')).filter((entry) => entry.target === `token:${made.id}`)).toHaveLength(1);

    expect((await auditOf('token.create')).some((entry) => entry.target === `token:${made.id}`)).toBe(true);
    await server.post('/api/apiToken/doDelete', { ids: [made.id] }, { token: admin });
    expect((await auditOf('token.revoke')).some((entry) => entry.target === `token:${made.id}`)).toBe(true);
  });

  it('is limited per token', async () => {
    const { token } = (await makeToken(integrator, { name: 'busy', permissions: ['seePermissions:statistics'] })).body.data;
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) statuses.push((await server.get('/api/census/service?kind=talk', { token })).status);
    expect(statuses.slice(0, 20).every((status) => status === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // Another token of the same creator has its own count.
    const other = (await makeToken(integrator, { name: 'calm', permissions: ['seePermissions:statistics'] })).body.data;
    expect((await server.get('/api/census/service?kind=talk', { token: other.token })).status).toBe(200);
  });

  it('is managed only by holders of the integration permission', async () => {
    const plain = await createAgent(server, admin, { username: 'plain' });
    expect((await server.get('/api/apiToken/getList', { token: plain.token })).status).toBe(403);
    expect((await makeToken(plain.token ?? '', { name: 'x', permissions: ['seePermissions:statistics'] })).status).toBe(403);
  });
});

describe('which calls a token may make', () => {
  it('answers each grant’s calls from the mounted routes, and never one a token is refused', async () => {
    const response = await server.get<import('@parley/protocol').ApiTokenCalls>('/api/apiToken/calls', { token: integrator });
    expect(response.status).toBe(200);
    const { everyAgent, byGrant } = response.body.data;
    const statistics = byGrant.find((entry) => entry.grant === 'seePermissions:statistics')?.calls ?? [];
    expect(statistics).toContain('GET /api/census/service');
    expect(byGrant.find((entry) => entry.grant === 'Admin')?.calls).toContain('GET /api/audit/getList');
    expect(everyAgent).toContain('POST /api/talk/send');
    const all = [...everyAgent, ...byGrant.flatMap((entry) => entry.calls)];
    for (const refused of ['POST /api/personal', 'GET /api/personal/sessions', 'POST /api/apiToken/doEdit', 'GET /api/login/logOut'])
      expect(all).not.toContain(refused);
  });
});
