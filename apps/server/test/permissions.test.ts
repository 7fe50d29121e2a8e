import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';

/** Every protected route of the server so far, with what guards it and a request that would pass validation. */
const PROTECTED: { method: 'GET' | 'POST'; path: string; permission: string | 'agent'; body?: unknown }[] = [
  { method: 'GET', path: '/api/userInfo', permission: 'agent' },
  { method: 'GET', path: '/api/login/logOut', permission: 'agent' },
  { method: 'GET', path: '/api/router/getList', permission: 'agent' },
  { method: 'GET', path: '/api/search/getList?keyword=a', permission: 'agent' },
  { method: 'GET', path: '/api/notice/getList', permission: 'agent' },
  { method: 'GET', path: '/api/service/getList', permission: 'setPermissions:service' },
  { method: 'GET', path: '/api/service/roles', permission: 'setPermissions:service' },
  {
    method: 'POST',
    path: '/api/service/doEdit',
    permission: 'setPermissions:service',
    // Role 3 is 'Nothing', made first below: a role any holder may give (CONTRACT §3, grant only what you hold).
    body: { username: 'x1', nickname: 'x', password: 'secret-pass-1', roleId: 3 },
  },
  { method: 'POST', path: '/api/service/doDelete', permission: 'setPermissions:service', body: { ids: [999] } },
  { method: 'GET', path: '/api/role/getList', permission: 'setPermissions:roleManagement' },
  { method: 'POST', path: '/api/role/doEdit', permission: 'setPermissions:roleManagement', body: { name: 'R-x', permissions: [] } },
  { method: 'POST', path: '/api/role/doDelete', permission: 'setPermissions:roleManagement', body: { ids: [999] } },
  { method: 'GET', path: '/api/record/getList', permission: 'seePermissions:seeLoginRecord' },
  { method: 'GET', path: '/api/user/getList', permission: 'seePermissions:seeVisitor' },
  { method: 'GET', path: `/api/user/detail?YQToken=${'v'.repeat(22)}`, permission: 'seePermissions:seeVisitor' },
  { method: 'POST', path: '/api/user/doEdit', permission: 'seePermissions:seeVisitor', body: { YQToken: 'v'.repeat(22), remark: 'x' } },
  { method: 'POST', path: '/api/user/doDelete', permission: 'seePermissions:seeVisitor', body: { ids: ['v'.repeat(22)] } },
  // Any agent reads the history; one without seeHistorical sees only their own conversations (history.test.ts).
  { method: 'GET', path: '/api/history/getList', permission: 'agent' },
];

let server: TestServer;
let admin: string;
let nobody: string | undefined;
const holders = new Map<string, string | undefined>();

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  const none = await server.post<{ id: number }>('/api/role/doEdit', { name: 'Nothing', permissions: [] }, { token: admin });
  expect(none.status).toBe(200);
  nobody = (await createAgent(server, admin, { username: 'nobody', role: 'Nothing' })).token;
  for (const permission of new Set(PROTECTED.map((route) => route.permission))) {
    if (permission === 'agent') continue;
    const name = `Only ${permission}`;
    const role = await server.post('/api/role/doEdit', { name, permissions: [permission] }, { token: admin });
    expect(role.status).toBe(200);
    holders.set(permission, (await createAgent(server, admin, { username: `holder-${holders.size}`, role: name })).token);
  }
});
afterAll(() => server.close());

const call = (route: (typeof PROTECTED)[number], token: string | undefined) =>
  route.method === 'GET' ? server.get(route.path, { token }) : server.post(route.path, route.body ?? {}, { token });

describe('permissions on every protected route', () => {
  it.each(PROTECTED)('$method $path answers 401 without a token', async (route) => {
    const response = await call(route, undefined);
    expect(response.status).toBe(401);
    expect(response.body.code).toBe(401);
  });

  it.each(PROTECTED.filter((route) => route.permission !== 'agent'))(
    '$method $path answers 403 to a role without $permission',
    async (route) => {
      const response = await call(route, nobody);
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: 403, msg: 'You do not have permission to do this' });
    },
  );

  it.each(PROTECTED.filter((route) => route.permission !== 'agent' && !route.path.includes('doDelete')))(
    '$method $path lets a holder of $permission through',
    async (route) => {
      const response = await call(route, holders.get(route.permission));
      expect(response.status).not.toBe(403);
      expect(response.status).not.toBe(401);
    },
  );

  it('refuses before validating: a forbidden caller with a bad body still gets 403', async () => {
    const response = await server.post('/api/service/doEdit', { nonsense: true }, { token: nobody });
    expect(response.status).toBe(403);
  });

  it('applies a role change to live sessions at once', async () => {
    const roles = await server.get<{ list: { id: number; name: string }[] }>('/api/role/getList?name=Nothing', { token: admin });
    const role = roles.body.data.list[0];
    expect((await server.get('/api/record/getList', { token: nobody })).status).toBe(403);
    await server.post(
      '/api/role/doEdit',
      { id: role?.id, name: 'Nothing', permissions: ['seePermissions:seeLoginRecord'] },
      { token: admin },
    );
    expect((await server.get('/api/record/getList', { token: nobody })).status).toBe(200);
    await server.post('/api/role/doEdit', { id: role?.id, name: 'Nothing', permissions: [] }, { token: admin });
    expect((await server.get('/api/record/getList', { token: nobody })).status).toBe(403);
  });
});
