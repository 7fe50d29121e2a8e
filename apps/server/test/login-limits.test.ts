import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, backends, type ManualClock, manualClock, startTestServer, type TestServer } from './harness.js';
import { dropSchema } from './processes.js';

// CONTRACT §3: 10 failures per account from one address, or 50 from one address, within the window;
// at most that many evaluated however many arrive at once; other addresses are not locked out.

/** POST /api/login from a given local address (127.0.0.0/8 is all loopback): answers the HTTP status. */
function loginFrom(server: TestServer, localAddress: string, body: { username: string; password: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(
      `${server.url}/api/login`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function evaluated(server: TestServer, reason: 'bad_password' | 'unknown_user', ip: string): Promise<number> {
  const rows = await server.storage.db.selectFrom('login_log').select('id').where('reason', '=', reason).where('ip', '=', ip).execute();
  return rows.length;
}

function counts(statuses: number[]): Record<number, number> {
  const tally: Record<number, number> = {};
  for (const status of statuses) tally[status] = (tally[status] ?? 0) + 1;
  return tally;
}

describe('POST /api/login failed-login limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('evaluates at most 10 of 50 parallel wrong passwords for one account from one address', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => loginFrom(server, '127.0.0.1', { username: ADMIN.username, password: `wrong-pass-${i}` })),
    );
    expect(await evaluated(server, 'bad_password', '127.0.0.1')).toBe(10);
    expect(counts(statuses)).toEqual({ 401: 10, 429: 40 });
    const limited = await server.storage.db.selectFrom('login_log').select('id').where('reason', '=', 'rate_limited').execute();
    expect(limited.length).toBe(40);
  });

  it('locks the account for that address only: the right password works from another address', async () => {
    expect(await loginFrom(server, '127.0.0.1', ADMIN)).toBe(429);
    expect(await loginFrom(server, '127.0.0.2', ADMIN)).toBe(200);
    // The address itself is not locked out of other accounts by one account's failures.
    expect(await loginFrom(server, '127.0.0.1', { username: 'someone-else', password: 'whatever-1' })).toBe(401);
  });

  it('answers 429 to an address after 50 failures over many accounts, and evaluates no more than 50', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => loginFrom(server, '127.0.0.3', { username: `nobody-${i}`, password: 'wrong-pass' })),
    );
    expect(await evaluated(server, 'unknown_user', '127.0.0.3')).toBe(50);
    expect(counts(statuses)).toEqual({ 401: 50, 429: 10 });
    expect(await loginFrom(server, '127.0.0.3', ADMIN)).toBe(429);
    expect(await loginFrom(server, '127.0.0.4', ADMIN)).toBe(200);
  });
});

describe('failed-login window', () => {
  const WINDOW_S = 60;
  let server: TestServer;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = manualClock();
    server = await startTestServer({ LOGIN_FAILURES_PER_ACCOUNT: '2', LOGIN_WINDOW: String(WINDOW_S) }, { authNow: clock.now });
  });
  afterAll(() => server.close());

  it('lets the address in again once the window has passed', async () => {
    expect(await loginFrom(server, '127.0.0.1', { username: ADMIN.username, password: 'wrong-pass-1' })).toBe(401);
    expect(await loginFrom(server, '127.0.0.1', { username: ADMIN.username, password: 'wrong-pass-2' })).toBe(401);
    expect(await loginFrom(server, '127.0.0.1', ADMIN)).toBe(429);
    clock.advance(WINDOW_S * 1000 - 5000);
    expect(await loginFrom(server, '127.0.0.1', ADMIN)).toBe(429);
    clock.advance(5000 + 1);
    expect(await loginFrom(server, '127.0.0.1', ADMIN)).toBe(200);
  });
});

// Two server processes of one deployment share only the database: the slots are taken there.
describe.runIf(backends.postgres)('failed-login limits across two server processes sharing PostgreSQL', () => {
  const schema = `ll_${randomBytes(6).toString('hex')}`;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ DATABASE_SCHEMA: schema });
    b = await startTestServer({ DATABASE_SCHEMA: schema });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await dropSchema(schema);
  });

  it('evaluates at most 10 of 50 parallel wrong passwords sent half to each process', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        loginFrom(i % 2 === 0 ? a : b, '127.0.0.1', { username: ADMIN.username, password: `wrong-pass-${i}` }),
      ),
    );
    expect(await evaluated(a, 'bad_password', '127.0.0.1')).toBe(10);
    expect(counts(statuses)).toEqual({ 401: 10, 429: 40 });
  });
});
