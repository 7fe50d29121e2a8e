import { type AuditEntry, PERMISSIONS } from '@parley/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;
/** A non-Admin agent holding every delegable permission. */
let deputy: string;
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  const role = await server.post('/api/role/doEdit', { name: 'Deputy', permissions: [...PERMISSIONS] }, { token: admin });
  expect(role.status).toBe(200);
  deputy = (await createAgent(server, admin, { username: 'deputy', role: 'Deputy' })).token ?? '';
});
afterAll(() => server.close());

type AuditList = { list: AuditEntry[]; total: number };
const audit = (query = '') => server.get<AuditList>(`/api/audit/getList${query}`, { token: admin });
/** The newest entry of an action. */
async function latest(action: string): Promise<AuditEntry | undefined> {
  return (await audit(`?action=${action}&pageSize=1`)).body.data.list[0];
}

describe('GET /api/audit/getList', () => {
  it('answers 401 without a session', async () => {
    expect((await server.get('/api/audit/getList')).status).toBe(401);
  });

  it('answers 403 to an agent that is not Admin, even with every delegable permission', async () => {
    const response = await server.get('/api/audit/getList', { token: deputy });
    expect(response.status).toBe(403);
    expect((await server.get('/api/audit/getList?format=csv', { token: deputy })).status).toBe(403);
  });

  it('records a created role with its actor, target, detail and address', async () => {
    const created = await server.post<{ id: number }>(
      '/api/role/doEdit',
      { name: 'Auditors', permissions: ['seePermissions:statistics'] },
      { token: admin },
    );
    expect(created.status).toBe(200);
    const entry = await latest('role.create');
    expect(entry).toMatchObject({
      actor: 'admin',
      action: 'role.create',
      target: 'role:Auditors',
      detail: { id: created.body.data.id, permissions: ['seePermissions:statistics'] },
      ip: '127.0.0.1',
    });
    expect(Date.parse(entry?.createdAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  it('is append-only: the database refuses to change or delete a row', async () => {
    const { db } = server.storage;
    await expect(sql`update audit_log set actor = 'someone'`.execute(db)).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit_log`.execute(db)).rejects.toThrow(/append-only/);
    expect((await latest('role.create'))?.actor).toBe('admin');
  });
});
