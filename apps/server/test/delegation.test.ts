import type { Agent, Role } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createAgent, startTestServer, type TestServer } from './harness.js';

// A user may grant only what they hold; a non-Admin never touches an Admin account (CONTRACT §3).
let server: TestServer;
let admin: string;
let roles: Record<string, Role>;
let adminAgent: Agent;

async function makeRole(name: string, permissions: string[]): Promise<number> {
  const created = await server.post<{ id: number }>('/api/role/doEdit', { name, permissions }, { token: admin });
  expect(created.status).toBe(200);
  return created.body.data.id;
}

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  await makeRole('Staff', ['setPermissions:service']);
  await makeRole('RoleKeeper', ['setPermissions:roleManagement']);
  await makeRole('Wide', ['setPermissions:service', 'seePermissions:statistics']);
  const listed = await server.get<{ list: Role[] }>('/api/role/getList', { token: admin });
  roles = Object.fromEntries(listed.body.data.list.map((role) => [role.name, role]));
  const agents = await server.get<{ list: Agent[] }>('/api/service/getList?username=admin', { token: admin });
  const found = agents.body.data.list.find((agent) => agent.username === ADMIN.username);
  if (!found) throw new Error('no admin');
  adminAgent = found;
});
afterAll(() => server.close());

const roleId = (name: string) => {
  const role = roles[name];
  if (!role) throw new Error(`no role ${name}`);
  return role.id;
};

describe('POST /api/service/doEdit by a non-Admin agent manager', () => {
  let staff: string;
  beforeAll(async () => {
    const created = await createAgent(server, admin, { username: 'staff-1', role: 'Staff' });
    staff = created.token ?? '';
  });

  it('cannot create an Admin agent, nor one in a role holding more than they hold (403)', async () => {
    const asAdmin = await server.post(
      '/api/service/doEdit',
      { username: 'sneaky-admin', nickname: 'x', password: 'sneaky-pass-1', roleId: roleId('Admin') },
      { token: staff },
    );
    expect(asAdmin.status).toBe(403);
    expect(asAdmin.body.code).toBe(403);
    const wider = await server.post(
      '/api/service/doEdit',
      { username: 'sneaky-wide', nickname: 'x', password: 'sneaky-pass-1', roleId: roleId('Wide') },
      { token: staff, lang: 'zh' },
    );
    expect(wider.status).toBe(403);
    expect(wider.body.msg).toBe('只能授予自己拥有的权限，且不能管理管理员账号');
    const sneaky = await server.get<{ total: number }>('/api/service/getList?username=sneaky', { token: admin });
    expect(sneaky.body.data.total).toBe(0);
  });

  it("cannot reset, edit, disable or delete the admin's account (403), and the admin's password stays", async () => {
    const edit = (changes: Record<string, unknown>) =>
      server.post(
        '/api/service/doEdit',
        { id: adminAgent.id, username: adminAgent.username, nickname: adminAgent.nickname, roleId: adminAgent.roleId, ...changes },
        { token: staff },
      );
    expect((await edit({ password: 'taken-over-1' })).status).toBe(403);
    expect((await edit({ nickname: 'renamed' })).status).toBe(403);
    expect((await edit({ disabled: true })).status).toBe(403);
    expect((await edit({ roleId: roleId('Staff') })).status).toBe(403);
    expect((await server.post('/api/login', { username: ADMIN.username, password: 'taken-over-1' })).status).toBe(401);
    expect((await server.post('/api/login', ADMIN)).status).toBe(200);
  });

  it('cannot move an agent (itself included) into a role holding more than they hold (403)', async () => {
    const peer = await createAgent(server, admin, { username: 'staff-peer', role: 'Staff' });
    const moved = await server.post(
      '/api/service/doEdit',
      { id: peer.id, username: 'staff-peer', nickname: 'p', roleId: roleId('Admin') },
      { token: staff },
    );
    expect(moved.status).toBe(403);
    const me = await server.get<{ list: Agent[] }>('/api/service/getList?username=staff-1', { token: admin });
    const self = me.body.data.list[0];
    if (!self) throw new Error('no staff-1');
    const promoted = await server.post(
      '/api/service/doEdit',
      { id: self.id, username: 'staff-1', nickname: 's', roleId: roleId('Wide') },
      { token: staff },
    );
    expect(promoted.status).toBe(403);
  });

  it('reads the roles to pick from without the role-management permission', async () => {
    const listed = await server.get<{ list: Role[] }>('/api/service/roles', { token: staff });
    expect(listed.status).toBe(200);
    expect(listed.body.data.list.map((role) => role.name)).toEqual(expect.arrayContaining(['Admin', 'Staff', 'Wide']));
    expect((await server.get('/api/role/getList', { token: staff })).status).toBe(403);
  });

  it('may manage agents of a role holding only what they hold', async () => {
    const created = await server.post<{ id: number }>(
      '/api/service/doEdit',
      { username: 'staff-made', nickname: 'm', password: 'staff-made-1', roleId: roleId('Staff') },
      { token: staff },
    );
    expect(created.status).toBe(200);
    const edited = await server.post(
      '/api/service/doEdit',
      { id: created.body.data.id, username: 'staff-made', nickname: 'm2', password: 'staff-made-2', roleId: roleId('Staff') },
      { token: staff },
    );
    expect(edited.status).toBe(200);
  });

  it('cannot delete an Admin agent, even in a batch with agents they may delete (all or nothing)', async () => {
    const victim = await createAgent(server, admin, { username: 'staff-victim', role: 'Staff' });
    const batch = await server.post('/api/service/doDelete', { ids: [victim.id, adminAgent.id] }, { token: staff });
    expect(batch.status).toBe(403);
    const still = await server.get<{ total: number }>('/api/service/getList?username=staff-victim', { token: admin });
    expect(still.body.data.total).toBe(1);
    expect((await server.post('/api/service/doDelete', { ids: [adminAgent.id] }, { token: staff })).status).toBe(403);
    expect((await server.post('/api/service/doDelete', { ids: [victim.id] }, { token: staff })).status).toBe(200);
  });
});

describe('POST /api/role/doEdit and doDelete by a non-Admin role manager', () => {
  let keeper: string;
  beforeAll(async () => {
    const created = await createAgent(server, admin, { username: 'keeper-1', role: 'RoleKeeper' });
    keeper = created.token ?? '';
  });

  it('cannot grant its own role, or any role, a permission it does not hold (403)', async () => {
    const own = await server.post(
      '/api/role/doEdit',
      { id: roleId('RoleKeeper'), name: 'RoleKeeper', permissions: ['setPermissions:roleManagement', 'setPermissions:service'] },
      { token: keeper },
    );
    expect(own.status).toBe(403);
    const created = await server.post('/api/role/doEdit', { name: 'Escalate', permissions: ['setPermissions:service'] }, { token: keeper });
    expect(created.status).toBe(403);
    const info = await server.get<{ permissions: string[] }>('/api/userInfo', { token: keeper });
    expect(info.body.data.permissions).toEqual(['setPermissions:roleManagement']);
  });

  it('cannot edit, rename or delete the Admin role or a role holding more than it holds (403)', async () => {
    const adminRole = await server.post('/api/role/doEdit', { id: roleId('Admin'), name: 'Admin', permissions: [] }, { token: keeper });
    expect(adminRole.status).toBe(403);
    const wide = await server.post('/api/role/doEdit', { id: roleId('Wide'), name: 'Narrow', permissions: [] }, { token: keeper });
    expect(wide.status).toBe(403);
    expect((await server.post('/api/role/doDelete', { ids: [roleId('Wide')] }, { token: keeper })).status).toBe(403);
  });

  it('may create and edit roles within what it holds', async () => {
    const created = await server.post<{ id: number }>(
      '/api/role/doEdit',
      { name: 'Helpers', permissions: ['setPermissions:roleManagement'] },
      { token: keeper },
    );
    expect(created.status).toBe(200);
    const emptied = await server.post(
      '/api/role/doEdit',
      { id: created.body.data.id, name: 'Helpers', permissions: [] },
      { token: keeper },
    );
    expect(emptied.status).toBe(200);
    expect((await server.post('/api/role/doDelete', { ids: [created.body.data.id] }, { token: keeper })).status).toBe(200);
  });
});
