import type { AuditEntry, LoginAnswer, MfaEnabled, MfaSetup, Notice, Personal, UserInfo } from '@parley/protocol';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createAgent, type ManualClock, manualClock, startTestServer, type TestServer } from './harness.js';
import { smtpListener } from './smtp.js';
import { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

// CONTRACT §15: two-factor sign-in (TOTP, RFC 6238), recovery codes, and the login's code step.

/** The code an authenticator app would show for `secret` at `at` (the server's clock, moved by the test). */
function codeAt(secret: string, at: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });
}

const notify = { newUser: true, newMsg: true, sound: true };
const STEP_MS = 30_000;

describe('two-factor sign-in', () => {
  let server: TestServer;
  let clock: ManualClock;
  let mail: Awaited<ReturnType<typeof smtpListener>>;
  let admin: string;
  let token: string;
  let secret: string;
  let recoveryCodes: string[];
  const agent = { username: 'two-step', password: 'two-step-pass-1' };

  beforeAll(async () => {
    clock = manualClock();
    mail = await smtpListener();
    server = await startTestServer(
      {
        SMTP_URL: `smtp://mailer:mail-pass@127.0.0.1:${mail.port}`,
        MAIL_FROM: 'parley@example.com',
        SITE_LANGUAGE: 'en',
        MFA_TICKET_TTL: '120',
      },
      { authNow: clock.now },
    );
    admin = await server.login();
    token = (await createAgent(server, admin, agent)).token ?? '';
    const saved = await server.post(
      '/api/personal',
      { nickname: agent.username, avatar: '', notify, email: 'two-step@example.org' },
      { token },
    );
    expect(saved.status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    await mail.close();
  });

  /** The password step; answers the ticket (and fails the test if a token came instead). */
  async function ticketFor(password = agent.password): Promise<string> {
    const first = await server.post<LoginAnswer>('/api/login', { username: agent.username, password });
    expect(first.status).toBe(200);
    if (!('ticket' in first.body.data)) throw new Error('expected a ticket');
    return first.body.data.ticket;
  }

  describe('POST /api/personal/mfa/setup', () => {
    it('answers 401 without a token', async () => {
      expect((await server.post('/api/personal/mfa/setup', {})).status).toBe(401);
      expect((await server.post('/api/personal/mfa/setup', {}, { token: 'made-up' })).status).toBe(401);
    });

    it('answers a seed to scan: base32, an otpauth URL naming the site and the account, and a QR code', async () => {
      const setup = await server.post<MfaSetup>('/api/personal/mfa/setup', {}, { token });
      expect(setup.status).toBe(200);
      secret = setup.body.data.secret;
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      const url = new URL(setup.body.data.otpauthUrl);
      expect(url.protocol).toBe('otpauth:');
      expect(url.host).toBe('totp');
      expect(decodeURIComponent(url.pathname)).toBe('/Parley:two-step');
      expect(url.searchParams.get('secret')).toBe(secret);
      expect(url.searchParams.get('issuer')).toBe('Parley');
      expect(setup.body.data.qrCode).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/=]{200,}$/);
      // Nothing is on yet: the password alone still signs in.
      const login = await server.post<LoginAnswer>('/api/login', agent);
      expect(login.body.data).toEqual({ token: expect.any(String) });
    });
  });

  describe('POST /api/personal/mfa/enable', () => {
    it('answers 401 without a token', async () => {
      expect((await server.post('/api/personal/mfa/enable', { code: '123456' })).status).toBe(401);
    });

    it('refuses a wrong code, then turns on with a right one and answers 10 recovery codes once', async () => {
      const wrong = await server.post('/api/personal/mfa/enable', { code: '000000' }, { token, lang: 'en' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.msg).toBe('Wrong verification code');
      expect((await server.post('/api/personal/mfa/enable', { code: '' }, { token })).status).toBe(400);

      const enabled = await server.post<MfaEnabled>('/api/personal/mfa/enable', { code: codeAt(secret, clock.now()) }, { token });
      expect(enabled.status).toBe(200);
      recoveryCodes = enabled.body.data.recoveryCodes;
      expect(recoveryCodes).toHaveLength(10);
      expect(new Set(recoveryCodes).size).toBe(10);
      for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);

      const personal = await server.get<Personal>('/api/personal', { token });
      expect(personal.body.data.mfa).toEqual({ enabled: true, recoveryCodesLeft: 10 });
      // On: setting up again needs it off first.
      expect((await server.post('/api/personal/mfa/setup', {}, { token })).status).toBe(409);
    });

    it('keeps the seed sealed and the recovery codes hashed in the database', async () => {
      const row = await server.storage.db
        .selectFrom('agents')
        .select(['mfa_secret', 'mfa_pending_secret'])
        .where('username', '=', agent.username)
        .executeTakeFirstOrThrow();
      expect(row.mfa_secret).toMatch(/^sealed:v1:/);
      expect(row.mfa_secret).not.toContain(secret);
      expect(row.mfa_pending_secret).toBeNull();
      const codes = JSON.stringify(await server.storage.db.selectFrom('mfa_recovery_codes').selectAll().execute());
      for (const code of recoveryCodes) {
        expect(codes).not.toContain(code);
        expect(codes).not.toContain(code.replaceAll('-', ''));
      }
    });

    it('tells the agent in the notice list and by mail', async () => {
      const notices = await server.get<{ list: Notice[] }>('/api/notice/getList', { token, lang: 'en' });
      expect(notices.body.data.list).toContainEqual(
        expect.objectContaining({ kind: 'security', title: 'Two-factor sign-in turned on', url: '#/personal/personal' }),
      );
      await waitFor(() => mail.mails.some((sent) => sent.raw.includes('Two-factor sign-in turned on')), 5000, 'the mail');
      const sent = mail.mails.find((item) => item.raw.includes('Two-factor sign-in turned on'));
      expect(sent?.to).toEqual(['two-step@example.org']);
      expect(sent?.raw).toContain('Subject: [Parley] Two-factor sign-in turned on');
    });
  });

  describe('POST /api/login and POST /api/login/mfa', () => {
    it('answers a ticket and no token for the right password, and a token for the ticket with a right code', async () => {
      clock.advance(STEP_MS);
      const first = await server.post<LoginAnswer>('/api/login', agent);
      expect(first.body.data).toEqual({ mfaRequired: true, ticket: expect.any(String) });
      const ticket = 'ticket' in first.body.data ? first.body.data.ticket : '';
      // A ticket is no token.
      expect((await server.get('/api/userInfo', { token: ticket })).status).toBe(401);

      const wrong = await server.post('/api/login/mfa', { ticket, code: '000000' }, { lang: 'en' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.msg).toBe('Wrong verification code');
      const signedIn = await server.post<{ token: string }>('/api/login/mfa', { ticket, code: codeAt(secret, clock.now()) });
      expect(signedIn.status).toBe(200);
      expect((await server.get<UserInfo>('/api/userInfo', { token: signedIn.body.data.token })).body.data.username).toBe(agent.username);

      // Single use: the ticket is spent.
      clock.advance(STEP_MS);
      const again = await server.post('/api/login/mfa', { ticket, code: codeAt(secret, clock.now()) }, { lang: 'en' });
      expect(again.status).toBe(401);
      expect(again.body.msg).toBe('This sign-in step has expired, please sign in again');
    });

    it('takes a code once: the same code does not sign in twice within its window', async () => {
      clock.advance(STEP_MS);
      const code = codeAt(secret, clock.now());
      expect((await server.post('/api/login/mfa', { ticket: await ticketFor(), code })).status).toBe(200);
      const replay = await server.post('/api/login/mfa', { ticket: await ticketFor(), code });
      expect(replay.status).toBe(401);
      // Two tickets racing with one code: one gets in.
      clock.advance(STEP_MS);
      const racing = codeAt(secret, clock.now());
      const [a, b] = await Promise.all([ticketFor(), ticketFor()]);
      const answers = await Promise.all([a, b].map((ticket) => server.post('/api/login/mfa', { ticket, code: racing })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    });

    it('lets a ticket lapse after MFA_TICKET_TTL', async () => {
      const ticket = await ticketFor();
      clock.advance(121_000);
      const late = await server.post('/api/login/mfa', { ticket, code: codeAt(secret, clock.now()) });
      expect(late.status).toBe(401);
    });

    it('takes each recovery code once, instead of a TOTP code', async () => {
      const [code] = recoveryCodes;
      const recovered = await server.post<{ token: string }>('/api/login/mfa', { ticket: await ticketFor(), code: code?.toUpperCase() });
      expect(recovered.status).toBe(200);
      expect((await server.post('/api/login/mfa', { ticket: await ticketFor(), code })).status).toBe(401);
      const personal = await server.get<Personal>('/api/personal', { token: recovered.body.data.token });
      expect(personal.body.data.mfa).toEqual({ enabled: true, recoveryCodesLeft: 9 });
    });

    it('refuses a made-up ticket, and validates the body', async () => {
      expect((await server.post('/api/login/mfa', { ticket: 'made-up', code: '123456' })).status).toBe(401);
      const missing = await server.post('/api/login/mfa', { ticket: 'made-up' }, { lang: 'en' });
      expect(missing.status).toBe(400);
      expect(missing.body.msg).toContain('code');
    });

    it('writes each step to the login log', async () => {
      const rows = await server.storage.db
        .selectFrom('login_log')
        .select(['result', 'reason'])
        .where('username', '=', agent.username)
        .orderBy('id')
        .execute();
      const reasons = rows.map((row) => row.reason);
      expect(reasons).toContain('mfa_required');
      expect(reasons).toContain('bad_code');
      expect(rows.filter((row) => row.reason === 'ok').length).toBeGreaterThan(2);
    });
  });

  describe('POST /api/personal/mfa/disable', () => {
    it('answers 401 without a token', async () => {
      expect((await server.post('/api/personal/mfa/disable', { code: '123456' })).status).toBe(401);
    });

    it('needs a right code, then turns off: the password alone signs in again; told, mailed and audited', async () => {
      clock.advance(STEP_MS);
      const signedIn = await server.post<{ token: string }>('/api/login/mfa', {
        ticket: await ticketFor(),
        code: codeAt(secret, clock.now()),
      });
      const session = signedIn.body.data.token;
      const wrong = await server.post('/api/personal/mfa/disable', { code: '000000' }, { token: session });
      expect(wrong.status).toBe(400);
      clock.advance(STEP_MS);
      const off = await server.post('/api/personal/mfa/disable', { code: codeAt(secret, clock.now()) }, { token: session });
      expect(off.status).toBe(200);
      const login = await server.post<LoginAnswer>('/api/login', agent);
      expect(login.body.data).toEqual({ token: expect.any(String) });
      expect((await server.get<Personal>('/api/personal', { token: session })).body.data.mfa).toEqual({
        enabled: false,
        recoveryCodesLeft: 0,
      });

      const notices = await server.get<{ list: Notice[] }>('/api/notice/getList', { token: session, lang: 'zh' });
      expect(notices.body.data.list.map((notice) => notice.title)).toEqual(expect.arrayContaining(['两步验证已关闭', '两步验证已开启']));
      await waitFor(() => mail.mails.some((sent) => sent.raw.includes('Two-factor sign-in turned off')), 5000, 'the mail');

      const audit = await server.get<{ list: AuditEntry[] }>('/api/audit/getList?pageSize=100', { token: admin });
      const entries = audit.body.data.list.filter((entry) => entry.target === 'agent:two-step' && entry.action.startsWith('mfa.'));
      expect(entries.map((entry) => [entry.action, entry.actor])).toEqual([
        ['mfa.disable', 'two-step'],
        ['mfa.enable', 'two-step'],
      ]);
    });

    it('turns off with a recovery code too', async () => {
      const setup = await server.post<MfaSetup>('/api/personal/mfa/setup', {}, { token });
      clock.advance(STEP_MS);
      const enabled = await server.post<MfaEnabled>(
        '/api/personal/mfa/enable',
        { code: codeAt(setup.body.data.secret, clock.now()) },
        { token },
      );
      expect(enabled.status).toBe(200);
      const off = await server.post('/api/personal/mfa/disable', { code: enabled.body.data.recoveryCodes[3] }, { token });
      expect(off.status).toBe(200);
      expect((await server.post('/api/personal/mfa/disable', { code: '123456' }, { token, lang: 'en' })).body.msg).toBe(
        'Two-factor sign-in is not on',
      );
    });
  });

  describe('a new password', () => {
    it('is told in the notice list, mailed to the address the account had, and audited', async () => {
      const changed = await server.post(
        '/api/personal',
        { nickname: agent.username, avatar: '', notify, password: 'two-step-pass-2', oldPassword: agent.password },
        { token },
      );
      expect(changed.status).toBe(200);
      const fresh = await server.login(agent.username, 'two-step-pass-2');
      const notices = await server.get<{ list: Notice[] }>('/api/notice/getList', { token: fresh, lang: 'en' });
      expect(notices.body.data.list[0]).toMatchObject({
        kind: 'security',
        title: 'Password changed',
        notice:
          'The password of your account was changed from 127.0.0.1 and every session was signed out. If this was not you, tell an administrator at once.',
      });
      await waitFor(() => mail.mails.some((sent) => sent.raw.includes('Password changed')), 5000, 'the mail');
      const sent = mail.mails.find((item) => item.raw.includes('Password changed'));
      expect(sent?.to).toEqual(['two-step@example.org']);
      // Plain text only: nothing in it is read as HTML, and no password is in it.
      expect(sent?.raw).not.toContain('two-step-pass');
      const audit = await server.get<{ list: AuditEntry[] }>('/api/audit/getList?action=password.change', { token: admin });
      expect(audit.body.data.list[0]).toMatchObject({
        actor: agent.username,
        action: 'password.change',
        target: `agent:${agent.username}`,
      });
      expect(JSON.stringify(audit.body.data.list[0])).not.toContain('two-step-pass');
    });
  });
});

describe('wrong two-factor codes and the login limits', () => {
  let server: TestServer;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = manualClock();
    server = await startTestServer({ LOGIN_FAILURES_PER_ACCOUNT: '3' }, { authNow: clock.now });
  });
  afterAll(() => server.close());

  it('counts wrong codes as failed logins: past the limit even a right code answers 429', async () => {
    const admin = await server.login();
    const setup = await server.post<MfaSetup>('/api/personal/mfa/setup', {}, { token: admin });
    const { secret } = setup.body.data;
    expect((await server.post('/api/personal/mfa/enable', { code: codeAt(secret, clock.now()) }, { token: admin })).status).toBe(200);
    clock.advance(STEP_MS);

    const first = await server.post<LoginAnswer>('/api/login', ADMIN);
    const ticket = 'ticket' in first.body.data ? first.body.data.ticket : '';
    const statuses = [];
    for (const code of ['000001', '000002', '000003']) statuses.push((await server.post('/api/login/mfa', { ticket, code })).status);
    expect(statuses).toEqual([401, 401, 401]);
    const right = await server.post('/api/login/mfa', { ticket, code: codeAt(secret, clock.now()) }, { lang: 'en' });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    // The password step counts with them: that address waits out the window for this account.
    expect((await server.post('/api/login', ADMIN)).status).toBe(429);
  });

  it('counts wrong codes to turn it off the same way', async () => {
    const other = await startTestServer({ LOGIN_FAILURES_PER_ACCOUNT: '2' });
    try {
      const admin = await other.login();
      const setup = await other.post<MfaSetup>('/api/personal/mfa/setup', {}, { token: admin });
      const enable = await other.post('/api/personal/mfa/enable', { code: codeAt(setup.body.data.secret, Date.now()) }, { token: admin });
      expect(enable.status).toBe(200);
      const answers = [];
      for (const code of ['000001', '000002', '000003'])
        answers.push((await other.post('/api/personal/mfa/disable', { code }, { token: admin })).status);
      expect(answers).toEqual([400, 400, 429]);
    } finally {
      await other.close();
    }
  });
});

describe('REQUIRE_ADMIN_MFA=1', () => {
  let server: TestServer;
  let adminToken: string;
  let recovery: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({ REQUIRE_ADMIN_MFA: '1' });
  });
  afterAll(() => server.close());

  it('refuses an Admin without two-factor sign-in everything but its set-up (403), until it is on', async () => {
    const admin = await server.login();
    const info = await server.get<UserInfo>('/api/userInfo', { token: admin });
    expect(info.status).toBe(200);
    expect(info.body.data.mfaSetupRequired).toBe(true);
    const refused = await server.get('/api/service/getList', { token: admin, lang: 'en' });
    expect(refused.status).toBe(403);
    expect(refused.body.msg).toBe('Administrators must turn on two-factor sign-in before anything else');
    expect((await server.get('/api/personal/sessions', { token: admin })).status).toBe(403);
    expect((await server.post('/api/personal/mfa/disable', { code: '123456' }, { token: admin })).status).toBe(403);
    const socket = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/agent?token=${encodeURIComponent(admin)}`);
    expect(await socket.closed()).toBe(4403);

    const setup = await server.post<MfaSetup>('/api/personal/mfa/setup', {}, { token: admin });
    expect(setup.status).toBe(200);
    const enabled = await server.post<MfaEnabled>(
      '/api/personal/mfa/enable',
      { code: codeAt(setup.body.data.secret, Date.now()) },
      { token: admin },
    );
    expect(enabled.status).toBe(200);
    recovery = enabled.body.data.recoveryCodes;
    adminToken = admin;
    expect((await server.get('/api/service/getList', { token: admin })).status).toBe(200);
    expect((await server.get<UserInfo>('/api/userInfo', { token: admin })).body.data.mfaSetupRequired).toBe(false);

    // Agents who are not Admins are not asked.
    const { token } = await createAgent(server, admin, { username: 'plain-agent' });
    expect((await server.get<UserInfo>('/api/userInfo', { token })).body.data.mfaSetupRequired).toBe(false);
    expect((await server.get('/api/personal/sessions', { token })).status).toBe(200);
  });

  it('asks the Admin for a code at the next sign-in; the home page counts the sign-in once, when the code is right', async () => {
    const signIns = async () =>
      (await server.get<{ signInsToday?: number }>('/api/home/overview', { token: adminToken })).body.data.signInsToday ?? -1;
    const before = await signIns();
    const first = await server.post<LoginAnswer>('/api/login', ADMIN);
    expect(first.body.data).toEqual({ mfaRequired: true, ticket: expect.any(String) });
    expect(await signIns()).toBe(before);
    const ticket = 'ticket' in first.body.data ? first.body.data.ticket : '';
    expect((await server.post('/api/login/mfa', { ticket, code: recovery[0] })).status).toBe(200);
    expect(await signIns()).toBe(before + 1);
  });
});
