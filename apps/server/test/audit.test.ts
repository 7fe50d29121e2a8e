import { type AuditEntry, PERMISSIONS, type RobotHighSettings, type Role } from '@parley/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visitor } from './chat-harness.js';
import { createAgent, type ManualClock, manualClock, startTestServer, type TestServer } from './harness.js';

const ZONE = 'Pacific/Honolulu';
const SMTP_PASSWORD = 'smtp-Pa55-never-in-the-log';
const MODEL_KEY = 'sk-model-key-never-in-the-log';

let server: TestServer;
let clock: ManualClock;
let admin: string;
/** A non-Admin agent holding every delegable permission. */
let deputy: string;
beforeAll(async () => {
  clock = manualClock();
  server = await startTestServer({ SITE_TIMEZONE: ZONE }, { now: clock.now });
  admin = await server.login();
  const role = await server.post('/api/role/doEdit', { name: 'Deputy', permissions: [...PERMISSIONS] }, { token: admin });
  expect(role.status).toBe(200);
  deputy = (await createAgent(server, admin, { username: 'deputy', role: 'Deputy' })).token ?? '';
});
afterAll(() => server.close());

type AuditList = { list: AuditEntry[]; total: number };
const audit = (query = '', token = admin) => server.get<AuditList>(`/api/audit/getList${query}`, { token });
/** The newest entry of an action. */
async function latest(action: string): Promise<AuditEntry | undefined> {
  const response = await audit(`?action=${action}&pageSize=1`);
  expect(response.status).toBe(200);
  return response.body.data.list[0];
}
const total = async () => (await audit('?pageSize=1')).body.data.total;

/** The export as sent; `text` without the BOM (which `bom` tells was there). */
async function csv(query = ''): Promise<{ status: number; type: string | null; bom: boolean; text: string }> {
  const response = await fetch(`${server.url}/api/audit/getList?format=csv${query}`, {
    headers: { authorization: `Bearer ${admin}`, 'accept-language': 'en' },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const bom = bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]));
  return { status: response.status, type: response.headers.get('content-type'), bom, text: bytes.subarray(bom ? 3 : 0).toString('utf8') };
}

/** Every audit row as stored, for secrets that must not be in any of them. */
async function storedRows(): Promise<string> {
  const rows = await server.storage.db.selectFrom('audit_log').selectAll().execute();
  return JSON.stringify(rows);
}

async function roleId(name: string): Promise<number> {
  const roles = await server.get<{ list: Role[] }>('/api/role/getList?pageSize=100', { token: admin });
  const role = roles.body.data.list.find((item) => item.name === name);
  if (!role) throw new Error(`no role ${name}`);
  return role.id;
}

const day = (ms: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);

describe('GET /api/audit/getList', () => {
  it('answers 401 without a session', async () => {
    expect((await server.get('/api/audit/getList')).status).toBe(401);
    expect((await fetch(`${server.url}/api/audit/getList?format=csv`)).status).toBe(401);
  });

  it('answers 403 to an agent that is not Admin, even with every delegable permission', async () => {
    const response = await audit('', deputy);
    expect(response.status).toBe(403);
    expect(JSON.stringify(response.body)).not.toContain('role.create');
    const exported = await fetch(`${server.url}/api/audit/getList?format=csv`, { headers: { authorization: `Bearer ${deputy}` } });
    expect(exported.status).toBe(403);
  });

  it('refuses a malformed filter, naming it', async () => {
    const response = await audit('?action=role;drop');
    expect(response.status).toBe(400);
    expect(response.body.msg).toContain('action');
    expect((await audit('?from=yesterday')).status).toBe(400);
    expect((await audit('?pageSize=101')).status).toBe(400);
  });
});

describe('what the audit log records', () => {
  it('a role created, changed and deleted, with actor, target, detail and address', async () => {
    const created = await server.post<{ id: number }>(
      '/api/role/doEdit',
      { name: 'Auditors', permissions: ['seePermissions:statistics'] },
      { token: admin },
    );
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    const entry = await latest('role.create');
    expect(entry).toMatchObject({
      actor: 'admin',
      action: 'role.create',
      target: 'role:Auditors',
      detail: { id, permissions: ['seePermissions:statistics'] },
      ip: '127.0.0.1',
    });
    expect(Date.parse(entry?.createdAt ?? '')).toBeGreaterThan(Date.now() - 60_000);

    await server.post('/api/role/doEdit', { id, name: 'Inspectors', permissions: ['seePermissions:link'] }, { token: admin });
    expect(await latest('role.update')).toMatchObject({
      actor: 'admin',
      target: 'role:Inspectors',
      detail: { id, renamedFrom: 'Auditors', added: ['seePermissions:link'], removed: ['seePermissions:statistics'] },
    });
    expect((await server.post('/api/role/doDelete', { ids: [id] }, { token: admin })).status).toBe(200);
    expect(await latest('role.delete')).toMatchObject({ actor: 'admin', target: 'role:Inspectors', detail: { id } });
  });

  it('an agent created, edited, disabled, enabled, given a new password and deleted; never the password', async () => {
    const password = 'agent-Secret-pass-77';
    const created = await server.post<{ id: number }>(
      '/api/service/doEdit',
      { username: 'carol', nickname: 'Carol', password, roleId: await roleId('Agent') },
      { token: admin },
    );
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    expect(await latest('agent.create')).toMatchObject({
      actor: 'admin',
      target: 'agent:carol',
      detail: { id, role: 'Agent', disabled: false },
    });

    const edit = (changes: Record<string, unknown>) =>
      server.post(
        '/api/service/doEdit',
        { id, username: 'carol', nickname: 'Carol', roleId: changes.roleId ?? 0, ...changes },
        { token: admin },
      );
    const agentRole = await roleId('Agent');
    const deputyRole = await roleId('Deputy');
    expect((await edit({ nickname: 'Carol B.', roleId: deputyRole })).status).toBe(200);
    expect(await latest('agent.update')).toMatchObject({
      target: 'agent:carol',
      detail: { id, fields: ['nickname', 'role'], role: { from: 'Agent', to: 'Deputy' } },
    });
    expect((await edit({ nickname: 'Carol B.', roleId: deputyRole, disabled: true })).status).toBe(200);
    expect(await latest('agent.disable')).toMatchObject({ actor: 'admin', target: 'agent:carol', detail: { id } });
    expect((await edit({ nickname: 'Carol B.', roleId: agentRole, disabled: false })).status).toBe(200);
    expect(await latest('agent.enable')).toMatchObject({ target: 'agent:carol' });
    expect(await latest('agent.update')).toMatchObject({ detail: { fields: ['role'], role: { from: 'Deputy', to: 'Agent' } } });
    const newPassword = 'another-Secret-pass-88';
    expect((await edit({ nickname: 'Carol B.', roleId: agentRole, password: newPassword })).status).toBe(200);
    expect(await latest('agent.resetPassword')).toMatchObject({ actor: 'admin', target: 'agent:carol', detail: { id } });
    expect((await server.post('/api/service/doDelete', { ids: [id] }, { token: admin })).status).toBe(200);
    expect(await latest('agent.delete')).toMatchObject({ actor: 'admin', target: 'agent:carol', detail: { id } });

    const stored = await storedRows();
    expect(stored).not.toContain(password);
    expect(stored).not.toContain(newPassword);
  });

  it('a self-registered account, with the newcomer as actor', async () => {
    const registered = await server.post<{ id: number }>('/api/register', { username: 'newcomer', password: 'newcomer-pass-1234' });
    expect(registered.status).toBe(200);
    expect(await latest('agent.create')).toMatchObject({
      actor: 'newcomer',
      target: 'agent:newcomer',
      detail: { id: registered.body.data.id, disabled: true, registered: true },
      ip: '127.0.0.1',
    });
  });

  it('a settings page: which page and which fields changed, never a secret value', async () => {
    const smtp = {
      host: 'smtp.example.com',
      port: 465,
      secure: true,
      user: 'bot',
      password: SMTP_PASSWORD,
      from: 'bot@example.com',
      to: [],
    };
    const saved = await server.post('/api/settings/softwareSetting', { smtp }, { token: admin });
    expect(saved.status).toBe(200);
    expect(await latest('settings.update')).toMatchObject({
      actor: 'admin',
      target: 'settings:softwareSetting',
      detail: { page: 'softwareSetting', fields: ['smtp'] },
    });
    await server.post('/api/settings/softwareSetting', { smtp: { ...smtp, password: `${SMTP_PASSWORD}-2`, port: 587 } }, { token: admin });
    expect((await latest('settings.update'))?.detail).toEqual({ page: 'softwareSetting', fields: ['smtp.port', 'smtp.password'] });

    // The form posts the page back with the password empty (kept): nothing changed, nothing recorded.
    const before = await total();
    await server.post('/api/settings/softwareSetting', { smtp: { ...smtp, password: '', port: 587 } }, { token: admin });
    expect(await total()).toBe(before);

    await server.post('/api/settings/windowStyle', { title: 'Ask us anything' }, { token: admin });
    expect((await latest('settings.update'))?.detail).toMatchObject({ page: 'windowStyle', fields: expect.arrayContaining(['title']) });

    const everything = JSON.stringify((await audit('?pageSize=100')).body) + (await csv()).text + (await storedRows());
    expect(everything).not.toContain(SMTP_PASSWORD);
  });

  it('the robot settings by field name, the model key never', async () => {
    const defaults = (await server.get<RobotHighSettings>('/api/robot/high', { token: admin })).body.data;
    const llm = { ...defaults.llm, apiKey: MODEL_KEY };
    const saved = await server.post('/api/robot/high', { ...defaults, name: 'Ada', llm }, { token: admin });
    expect(saved.status).toBe(200);
    const entry = await latest('robot.settings');
    expect(entry).toMatchObject({ actor: 'admin', target: 'robot.settings' });
    expect(entry?.detail).toEqual({ fields: expect.arrayContaining(['name', 'llm.apiKey']) });

    await server.post('/api/robot/high', { ...defaults, name: 'Ada', threshold: 0.7, llm: { ...llm, apiKey: '' } }, { token: deputy });
    expect(await latest('robot.settings')).toMatchObject({ actor: 'deputy', detail: { fields: ['threshold'] } });

    const everything = JSON.stringify((await audit('?pageSize=100')).body) + (await csv()).text + (await storedRows());
    expect(everything).not.toContain(MODEL_KEY);
  });

  it('question-answer pairs created, edited, deleted and imported', async () => {
    const created = await server.post<{ id: number }>(
      '/api/robot/ask/doEdit',
      { questions: ['Where is my parcel?'], answer: 'Track it on the order page.' },
      { token: deputy },
    );
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    expect(await latest('robot.pair.create')).toMatchObject({ actor: 'deputy', target: 'robot.pair:Where is my parcel?', detail: { id } });
    await server.post(
      '/api/robot/ask/doEdit',
      { id, questions: ['Where is my parcel?'], answer: 'See the order page.' },
      { token: deputy },
    );
    expect(await latest('robot.pair.update')).toMatchObject({ target: 'robot.pair:Where is my parcel?', detail: { id } });
    await server.post('/api/robot/ask/doDelete', { ids: [id] }, { token: deputy });
    expect(await latest('robot.pair.delete')).toMatchObject({ target: 'robot.pair:Where is my parcel?', detail: { id } });

    const form = new FormData();
    form.append(
      'file',
      new Blob(['question,answer\nHello,Hi there\nOpening hours,9 to 5\n,no question\n'], { type: 'text/csv' }),
      'pairs.csv',
    );
    const imported = await fetch(`${server.url}/api/robot/ask/import`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(imported.status).toBe(200);
    expect(await latest('robot.pair.import')).toMatchObject({
      actor: 'admin',
      target: 'robot.pairs',
      detail: { created: 2, updated: 0, rejected: 1 },
    });
  });

  it('links and friendly contacts created, changed and deleted', async () => {
    const link = await server.post<{ id: number }>('/api/link/doEdit', { name: 'Spring campaign', key: 'spring26' }, { token: deputy });
    expect(link.status).toBe(200);
    const linkId = link.body.data.id;
    expect(await latest('link.create')).toMatchObject({
      actor: 'deputy',
      target: 'link:Spring campaign',
      detail: { id: linkId, key: 'spring26', serviceID: null },
    });
    await server.post('/api/link/doEdit', { id: linkId, name: 'Spring campaign', key: 'spring27', remark: 'posters' }, { token: deputy });
    expect((await latest('link.update'))?.detail).toEqual({ id: linkId, fields: ['remark', 'key'] });
    await server.post('/api/link/doDelete', { ids: [linkId] }, { token: deputy });
    expect(await latest('link.delete')).toMatchObject({ target: 'link:Spring campaign', detail: { id: linkId, key: 'spring27' } });

    const contact = await server.post<{ id: number }>('/api/friendly/doEdit', { name: 'Dana', phone: '+1 555 0100' }, { token: admin });
    const contactId = contact.body.data.id;
    expect(await latest('friendly.create')).toMatchObject({ actor: 'admin', target: 'friendly:Dana', detail: { id: contactId } });
    await server.post('/api/friendly/doEdit', { id: contactId, name: 'Dana', phone: '+1 555 0199', company: 'Acme' }, { token: admin });
    expect((await latest('friendly.update'))?.detail).toEqual({ id: contactId, fields: ['company', 'phone'] });
    await server.post('/api/friendly/doDelete', { ids: [contactId] }, { token: admin });
    expect(await latest('friendly.delete')).toMatchObject({ target: 'friendly:Dana', detail: { id: contactId } });
  });

  it('a visitor erased on request, by its id only', async () => {
    const guest = await visitor(server);
    await guest.say('please forget me');
    guest.socket.close();
    const erased = await server.post('/api/user/doDelete', { ids: [guest.id] }, { token: admin });
    expect(erased.status).toBe(200);
    expect(await latest('visitor.erase')).toMatchObject({ actor: 'admin', target: `visitor:${guest.id}`, detail: {} });
    expect(await storedRows()).not.toContain('please forget me');
  });

  it('nothing for a change that fails or rolls back', async () => {
    const before = await total();
    // Refused by validation, by a conflict inside the transaction, and rolled back after the row was written:
    // an Admin taking the Admin role away from the only administrator.
    expect((await server.post('/api/role/doEdit', { name: 'Bad', permissions: ['rootAccess'] }, { token: admin })).status).toBe(400);
    expect((await server.post('/api/role/doEdit', { name: 'Deputy', permissions: [] }, { token: admin })).status).toBe(409);
    const me = (await server.get<{ list: { id: number; username: string }[] }>('/api/service/getList?username=admin', { token: admin }))
      .body.data.list;
    const self = me.find((agent) => agent.username === 'admin');
    const demoted = await server.post(
      '/api/service/doEdit',
      { id: self?.id, username: 'admin', nickname: 'admin', roleId: await roleId('Agent') },
      { token: admin },
    );
    expect(demoted.status).toBe(409);
    expect((await server.post('/api/settings/softwareSetting', { timezone: 'Mars/Olympus' }, { token: admin })).status).toBe(400);
    expect((await server.post('/api/link/doEdit', { name: 'Clash', key: 'spring27' }, { token: admin })).status).toBe(200);
    const clashes = await total();
    expect((await server.post('/api/link/doEdit', { name: 'Clash again', key: 'spring27' }, { token: admin })).status).toBe(409);
    expect(await total()).toBe(clashes);
    expect(clashes).toBe(before + 1);
  });

  it('is append-only: the database refuses to change or delete a row', async () => {
    const { db } = server.storage;
    await expect(sql`update audit_log set actor = 'someone'`.execute(db)).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit_log`.execute(db)).rejects.toThrow(/append-only/);
    expect((await latest('role.create'))?.actor).toBe('admin');
  });
});

describe('listing, filters and export', () => {
  it('lists newest first and pages', async () => {
    const all = (await audit('?pageSize=100')).body.data;
    expect(all.total).toBeGreaterThan(20);
    const ids = all.list.map((entry) => entry.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const times = all.list.map((entry) => entry.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    const second = (await audit('?pageNo=2&pageSize=5')).body.data;
    expect(second.total).toBe(all.total);
    expect(second.list.map((entry) => entry.id)).toEqual(ids.slice(5, 10));
  });

  it('filters by actor, by action or area, and by days of the site', async () => {
    const byDeputy = (await audit('?actor=DEPU&pageSize=100')).body.data;
    expect(byDeputy.total).toBeGreaterThan(0);
    expect(byDeputy.list.every((entry) => entry.actor === 'deputy')).toBe(true);

    const exact = (await audit('?action=agent.create&pageSize=100')).body.data;
    expect(exact.list.map((entry) => entry.target)).toEqual(['agent:newcomer', 'agent:carol', 'agent:deputy']);
    const area = (await audit('?action=robot&pageSize=100')).body.data;
    expect(new Set(area.list.map((entry) => entry.action))).toEqual(
      new Set(['robot.settings', 'robot.pair.create', 'robot.pair.update', 'robot.pair.delete', 'robot.pair.import']),
    );
    expect((await audit('?action=robot.pair&pageSize=100')).body.data.list.every((entry) => entry.action.startsWith('robot.pair.'))).toBe(
      true,
    );

    // Three days on, one more change: the days of the site's zone tell it from the others.
    clock.advance(3 * 86_400_000);
    const later = await server.post('/api/friendly/doEdit', { name: 'Later' }, { token: admin });
    expect(later.status).toBe(200);
    const today = day(clock.now());
    const earlier = day(clock.now() - 2 * 86_400_000);
    const fromToday = (await audit(`?from=${today}&pageSize=100`)).body.data;
    expect(fromToday.list.map((entry) => entry.target)).toEqual(['friendly:Later']);
    const untilEarlier = (await audit(`?to=${earlier}&pageSize=100`)).body.data;
    expect(untilEarlier.total).toBe((await total()) - 1);
    expect(untilEarlier.list.some((entry) => entry.target === 'friendly:Later')).toBe(false);
    expect((await audit(`?from=${today}&to=${today}&actor=deputy`)).body.data.total).toBe(0);
    expect((await audit(`?from=${today}&action=friendly.create`)).body.data.total).toBe(1);
  });

  it('exports the filtered log as CSV, newest first, in the caller language', async () => {
    const exported = await csv();
    expect(exported.status).toBe(200);
    expect(exported.type).toBe('text/csv; charset=utf-8');
    expect(exported.bom).toBe(true);
    const lines = exported.text.trimEnd().split('\n');
    expect(lines[0]).toBe('Entry,Time,Actor,Action,Target,Detail,IP address');
    const all = (await audit('?pageSize=100')).body.data;
    expect(lines).toHaveLength(all.total + 1);
    expect(lines[1]).toMatch(/^\d+,\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},admin,friendly.create,friendly:Later,/);
    const ids = lines.slice(1).map((line) => Number(line.split(',')[0]));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const filtered = await csv('&action=settings.update');
    const rows = filtered.text.trimEnd().split('\n').slice(1);
    expect(rows.length).toBe((await audit('?action=settings.update')).body.data.total);
    expect(rows.every((line) => line.includes(',settings.update,settings:'))).toBe(true);
    expect(filtered.text).toContain('"{""page"":""softwareSetting"",""fields"":[""smtp.port"",""smtp.password""]}"');

    const zh = await fetch(`${server.url}/api/audit/getList?format=csv`, {
      headers: { authorization: `Bearer ${admin}`, 'accept-language': 'zh' },
    });
    expect((await zh.text()).split('\n')[0]).toContain('操作人');
  });

  it('exports more rows than one page of the export reads', async () => {
    const fresh = await startTestServer();
    try {
      const token = await fresh.login();
      const rows = Array.from({ length: 1203 }, (_, i) => ({
        actor: 'system',
        actor_id: null,
        action: 'link.create',
        target: `link:${i}`,
        detail: '{}',
        ip: '',
        created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      }));
      for (let i = 0; i < rows.length; i += 200)
        await fresh.storage.db
          .insertInto('audit_log')
          .values(rows.slice(i, i + 200))
          .execute();
      const response = await fetch(`${fresh.url}/api/audit/getList?format=csv`, { headers: { authorization: `Bearer ${token}` } });
      const lines = (await response.text()).trimEnd().split('\n');
      expect(lines).toHaveLength(1204);
      expect(lines[1]).toContain(',link:1202,');
      expect(lines[1203]).toContain(',link:0,');
    } finally {
      await fresh.close();
    }
  });
});
