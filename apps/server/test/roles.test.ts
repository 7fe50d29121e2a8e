import type { Role } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

const list = (query = '') => server.get<{ list: Role[]; total: number }>(`/api/role/getList${query}`, { token: admin });

describe('GET /api/role/getList', () => {
  it('lists the built-in roles with their permissions and agent counts', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    const [adminRole, agentRole] = response.body.data.list;
    expect(adminRole).toMatchObject({ name: 'Admin', builtin: true, agents: 1 });
    expect(adminRole?.permissions).toHaveLength(10);
    expect(agentRole).toMatchObject({ name: 'Agent', builtin: true, permissions: ['seePermissions:seeHistorical'] });
  });
});

describe('POST /api/role/doEdit', () => {
  it('creates, renames and filters roles', async () => {
    const created = await server.post<{ id: number }>(
      '/api/role/doEdit',
      { name: 'Supervisor', permissions: ['setPermissions:service', 'seePermissions:statistics'] },
      { token: admin },
    );
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    const renamed = await server.post(
      '/api/role/doEdit',
      { id, name: 'Lead', permissions: ['seePermissions:statistics'] },
      { token: admin },
    );
    expect(renamed.status).toBe(200);
    const found = await list('?name=lea');
    expect(found.body.data.list).toEqual([
      expect.objectContaining({ id, name: 'Lead', permissions: ['seePermissions:statistics'], builtin: false, agents: 0 }),
    ]);
    expect((await list('?role=Lead')).body.data.total).toBe(1);
  });

  it('answers 400 for an unknown permission, 409 for a taken name or a renamed built-in role', async () => {
    const unknown = await server.post('/api/role/doEdit', { name: 'Bad', permissions: ['rootAccess'] }, { token: admin });
    expect(unknown.status).toBe(400);
    expect(unknown.body.msg).toContain('permissions');
    expect((await server.post('/api/role/doEdit', { name: 'Admin', permissions: [] }, { token: admin })).status).toBe(409);
    const builtin = (await list('?name=Agent')).body.data.list[0];
    const rename = await server.post('/api/role/doEdit', { id: builtin?.id, name: 'Helpers', permissions: [] }, { token: admin });
    expect(rename.status).toBe(409);
    expect(rename.body.msg).toBe('A built-in role cannot be deleted or renamed');
  });
});

describe('POST /api/role/doDelete', () => {
  it('deletes an unused role, refuses one in use and the built-in ones', async () => {
    const unused = await server.post<{ id: number }>('/api/role/doEdit', { name: 'Temporary', permissions: [] }, { token: admin });
    expect((await server.post('/api/role/doDelete', { ids: [unused.body.data.id] }, { token: admin })).status).toBe(200);
    expect((await list('?name=Temporary')).body.data.total).toBe(0);

    const used = await server.post<{ id: number }>('/api/role/doEdit', { name: 'Busy', permissions: [] }, { token: admin });
    await createAgent(server, admin, { username: 'busy-agent', role: 'Busy' });
    const inUse = await server.post('/api/role/doDelete', { ids: [used.body.data.id] }, { token: admin });
    expect(inUse.status).toBe(409);
    expect(inUse.body.msg).toBe('This role is still assigned to agents');

    const builtin = (await list('?name=Admin')).body.data.list[0];
    expect((await server.post('/api/role/doDelete', { ids: [builtin?.id] }, { token: admin })).status).toBe(409);
  });
});
