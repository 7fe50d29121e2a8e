import type { AccountSession, AuditEntry } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type ManualClock, manualClock, startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';

// CONTRACT §15: one's own sessions, listed with address, browser and last use, and ended at once.

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';

let server: TestServer;
let clock: ManualClock;
let admin: string;
const agent = { username: 'many-places', password: 'many-places-pass-1' };
const wsUrl = (token: string) => `${server.url.replace('http', 'ws')}/ws/agent?token=${encodeURIComponent(token)}`;

beforeAll(async () => {
  clock = manualClock();
  server = await startTestServer({}, { authNow: clock.now });
  admin = await server.login();
  await createAgent(server, admin, agent);
});
afterAll(() => server.close());

async function signIn(userAgent: string): Promise<string> {
  const answer = await server.post<{ token: string }>('/api/login', agent, { headers: { 'user-agent': userAgent } });
  expect(answer.status).toBe(200);
  return answer.body.data.token;
}

const list = (token: string) => server.get<AccountSession[]>('/api/personal/sessions', { token });

describe('GET /api/personal/sessions', () => {
  it('answers 401 without a token or with a revoked one', async () => {
    expect((await server.get('/api/personal/sessions')).status).toBe(401);
    const token = await signIn(FIREFOX);
    await server.get('/api/login/logOut', { token });
    expect((await list(token)).status).toBe(401);
  });

  it('lists only one’s own live sessions, newest first, the current one marked, with address and browser', async () => {
    const before = clock.now();
    const desk = await signIn(FIREFOX);
    const phone = await signIn(PHONE);
    const answer = await list(phone);
    expect(answer.status).toBe(200);
    const [newest, older] = answer.body.data;
    expect(newest).toEqual({
      id: expect.any(Number),
      current: true,
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      ip: '127.0.0.1',
      userAgent: PHONE,
    });
    expect(older).toMatchObject({ current: false, ip: '127.0.0.1', userAgent: FIREFOX });
    expect(Date.parse(newest?.createdAt ?? '')).toBeGreaterThanOrEqual(before - 1000);
    // The logged-out one is not listed (nor, below, any of another agent's).
    expect(answer.body.data.filter((session) => session.userAgent === FIREFOX)).toHaveLength(1);
    const mine = (await list(desk)).body.data;
    expect(mine.find((session) => session.current)?.userAgent).toBe(FIREFOX);
    const admins = (await list(admin)).body.data;
    expect(admins.map((session) => session.id)).not.toContain(newest?.id);
  });

  it('records the last use at most once a minute, not on every request', async () => {
    const token = await signIn(FIREFOX);
    const current = async () => (await list(token)).body.data.find((session) => session.current);
    const first = await current();
    clock.advance(20_000);
    await server.get('/api/userInfo', { token });
    expect((await current())?.lastUsedAt).toBe(first?.lastUsedAt);
    clock.advance(45_000);
    await server.get('/api/userInfo', { token });
    const later = await current();
    expect(Date.parse(later?.lastUsedAt ?? '')).toBeGreaterThan(Date.parse(first?.lastUsedAt ?? ''));
    // A refreshed token carries the sign-in on: same start, address and browser, a new id.
    const refreshed = await server.get<{ token: string }>('/api/refreshToken', { token });
    const renewed = (await list(refreshed.body.data.token)).body.data.find((session) => session.current);
    expect(renewed).toMatchObject({ createdAt: first?.createdAt, userAgent: FIREFOX, ip: '127.0.0.1' });
    expect(renewed?.id).not.toBe(first?.id);
  });
});

describe('POST /api/personal/sessions/revoke', () => {
  it('answers 401 without a token', async () => {
    expect((await server.post('/api/personal/sessions/revoke', { ids: [1] })).status).toBe(401);
  });

  it('answers 404 for a session of another agent, and ends nothing', async () => {
    const token = await signIn(FIREFOX);
    const own = (await list(token)).body.data.find((session) => session.current);
    const adminSession = (await list(admin)).body.data.find((session) => session.current);
    const refused = await server.post('/api/personal/sessions/revoke', { ids: [adminSession?.id] }, { token, lang: 'en' });
    expect(refused.status).toBe(404);
    expect(refused.body.msg).toBe('No such session, or it has ended');
    // Mixed with one's own: all or nothing.
    const mixed = await server.post('/api/personal/sessions/revoke', { ids: [own?.id, adminSession?.id] }, { token });
    expect(mixed.status).toBe(404);
    expect((await server.get('/api/userInfo', { token: admin })).status).toBe(200);
    expect((await server.get('/api/userInfo', { token })).status).toBe(200);
    const invalid = await server.post('/api/personal/sessions/revoke', { ids: [] }, { token, lang: 'en' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.msg).toContain('ids');
  });

  it('ends another of one’s sessions at once, its socket included, and audits it', async () => {
    const keeping = await signIn(FIREFOX);
    const ending = await signIn(PHONE);
    const socket = await TestSocket.open(wsUrl(ending));
    await socket.frame('0000');
    const target = (await list(ending)).body.data.find((session) => session.current);
    const revoked = await server.post('/api/personal/sessions/revoke', { ids: [target?.id] }, { token: keeping });
    expect(revoked.status).toBe(200);
    await socket.frame('8000');
    expect(await socket.closed()).toBe(4403);
    expect((await server.get('/api/userInfo', { token: ending })).status).toBe(401);
    expect((await server.get('/api/refreshToken', { token: ending })).status).toBe(401);
    expect((await server.get('/api/userInfo', { token: keeping })).status).toBe(200);
    expect((await list(keeping)).body.data.map((session) => session.id)).not.toContain(target?.id);

    const audit = await server.get<{ list: AuditEntry[] }>('/api/audit/getList?action=session.revoke', { token: admin });
    expect(audit.body.data.list[0]).toMatchObject({
      actor: agent.username,
      action: 'session.revoke',
      target: `agent:${agent.username}`,
      detail: { sessions: [target?.id] },
    });
  });

  it('ends every other session, and the current one when it is named', async () => {
    const current = await signIn(FIREFOX);
    const others = (await list(current)).body.data.filter((session) => !session.current).map((session) => session.id);
    expect(others.length).toBeGreaterThan(0);
    expect((await server.post('/api/personal/sessions/revoke', { ids: others }, { token: current })).status).toBe(200);
    const left = (await list(current)).body.data;
    expect(left).toHaveLength(1);
    expect(left[0]?.current).toBe(true);
    expect((await server.post('/api/personal/sessions/revoke', { ids: [left[0]?.id] }, { token: current })).status).toBe(200);
    expect((await server.get('/api/userInfo', { token: current })).status).toBe(401);
  });
});
