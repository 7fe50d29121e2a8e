import { type Endpoint, type EndpointSpec, endpoints } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Access } from '../src/lib/http.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';

/** `/api` routes that are not rows of the table: uploaded files, served by their random names. */
const OUTSIDE_THE_TABLE = /^GET \/api\/files\//;

let server: TestServer;
let powerless: string;
let declared: [Endpoint, Access][];

beforeAll(async () => {
  server = await startTestServer();
  const admin = await server.login();
  const role = await server.post('/api/role/doEdit', { name: 'Nothing', permissions: [] }, { token: admin });
  expect(role.status).toBe(200);
  const { token } = await createAgent(server, admin, { username: 'powerless', role: 'Nothing' });
  powerless = token ?? '';
  declared = [...server.app.apiRoutes.declared];
});
afterAll(() => server.close());

/** The status a route answers; refusals are JSON envelopes even where a success is a file (raw rows). */
async function call(key: Endpoint, token?: string): Promise<{ status: number; body: { code?: number } | null }> {
  const [method, path] = key.split(' ') as ['GET' | 'POST', string];
  const spec: EndpointSpec = endpoints[key];
  if (spec.raw) {
    const response = await fetch(server.url + path, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
    const text = await response.text();
    const json = response.headers.get('content-type')?.startsWith('application/json');
    return { status: response.status, body: json ? (JSON.parse(text) as { code?: number }) : null };
  }
  return method === 'GET' ? server.get(path, { token }) : server.post(path, {}, { token });
}

describe('the /api routes and the endpoint table', () => {
  it('serves every row of the table', () => {
    const served = new Set(declared.map(([key]) => key));
    const missing = (Object.keys(endpoints) as Endpoint[]).filter((key) => !served.has(key));
    expect(missing).toEqual([]);
  });

  it('mounts no /api route that is not a row of the table', () => {
    const rows = new Set<string>(declared.map(([key]) => key));
    const unlisted = [...server.app.apiRoutes.mounted].filter((route) => !rows.has(route) && !OUTSIDE_THE_TABLE.test(route));
    expect(unlisted).toEqual([]);
    for (const [key] of declared) expect(server.app.apiRoutes.mounted).toContain(key);
  });

  it('has rows to check, of each kind of access', () => {
    const kinds = new Set(declared.map(([, access]) => (typeof access === 'string' ? access : 'permission')));
    expect([...kinds]).toEqual(expect.arrayContaining(['agent', 'permission', 'public']));
    expect(declared.length).toBeGreaterThan(40);
    expect([...server.app.apiRoutes.mounted].filter((route) => OUTSIDE_THE_TABLE.test(route))).toHaveLength(2);
  });
});

describe('every protected route', () => {
  it('answers 401 without a token', async () => {
    const wrong: string[] = [];
    for (const [key, access] of declared) {
      if (access === 'public') continue;
      const response = await call(key);
      if (response.status !== 401 || response.body?.code !== 401) wrong.push(`${key}: ${response.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers 403 to a signed-in agent holding no permission, when it needs a permission or the Admin role', async () => {
    const wrong: string[] = [];
    for (const [key, access] of declared) {
      if (access === 'public' || access === 'agent') continue;
      const response = await call(key, powerless);
      if (response.status !== 403 || response.body?.code !== 403) wrong.push(`${key}: ${response.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it('lets that agent past the access check of routes open to any agent', async () => {
    const refused: string[] = [];
    for (const [key, access] of declared) {
      if (access !== 'agent' || key === 'GET /api/login/logOut') continue;
      const response = await call(key, powerless);
      if (response.status === 401) refused.push(`${key}: ${response.status}`);
    }
    expect(refused).toEqual([]);
  });
});
