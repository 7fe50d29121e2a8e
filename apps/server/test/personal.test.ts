import type { Personal } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

const notify = { newUser: true, newMsg: true, sound: true };

describe('GET and POST /api/personal', () => {
  it('answer 401 without a token', async () => {
    expect((await server.get('/api/personal')).status).toBe(401);
    expect((await server.post('/api/personal', { nickname: 'x', avatar: '', notify })).status).toBe(401);
  });

  it('let an agent without any permission read and save their own profile (there is no 403: it is one’s own)', async () => {
    const { token } = await createAgent(server, admin, { username: 'plain' });
    const before = await server.get<Personal>('/api/personal', { token });
    expect(before.status).toBe(200);
    const mfa = { enabled: false, recoveryCodesLeft: 0 };
    expect(before.body.data).toEqual({
      username: 'plain',
      nickname: 'plain',
      avatar: '',
      notify: { ...notify, transfer: true, letter: true },
      email: '',
      mfa,
    });

    const saved = await server.post<Personal>(
      '/api/personal',
      {
        nickname: 'Plain Jane',
        avatar: '/files/face.png',
        notify: { newUser: false, newMsg: true, sound: false, letter: false },
        email: 'jane@example.org',
      },
      { token },
    );
    expect(saved.status).toBe(200);
    const expected = {
      username: 'plain',
      nickname: 'Plain Jane',
      avatar: '/files/face.png',
      // Left out (`transfer`), a switch keeps what it was: a console from before it existed loses nothing.
      notify: { newUser: false, newMsg: true, sound: false, transfer: true, letter: false },
      email: 'jane@example.org',
      mfa,
    };
    expect(saved.body.data).toEqual(expected);
    expect((await server.get<Personal>('/api/personal', { token })).body.data).toEqual(expected);
    // The new name is what the agent's session reports too.
    const index = await server.get<{ info: { nickname: string } }>('/api/index', { token });
    expect(index.body.data.info.nickname).toBe('Plain Jane');
    // Another agent's profile is untouched.
    expect((await server.get<Personal>('/api/personal', { token: admin })).body.data.username).toBe('admin');
  });

  it('follow the team’s desktop settings until the agent chooses otherwise', async () => {
    const { token } = await createAgent(server, admin, { username: 'follower' });
    const team = async (notifyNewUser: boolean) => {
      const current = await server.get<Record<string, unknown>>('/api/settings/desktopSetting', { token: admin });
      const saved = await server.post('/api/settings/desktopSetting', { ...current.body.data, notifyNewUser }, { token: admin });
      expect(saved.status).toBe(200);
    };
    const mine = async () => (await server.get<Personal>('/api/personal', { token })).body.data.notify;
    await team(false);
    expect(await mine()).toEqual({ newUser: false, newMsg: true, sound: true, transfer: true, letter: true });
    // Saving the team's own values changes nothing: the agent still follows the team.
    await server.post('/api/personal', { nickname: 'follower', avatar: '', notify: await mine() }, { token });
    await team(true);
    expect((await mine()).newUser).toBe(true);
    // A choice of one's own stays when the team changes.
    await server.post('/api/personal', { nickname: 'follower', avatar: '', notify: { ...(await mine()), newUser: false } }, { token });
    await team(true);
    expect((await mine()).newUser).toBe(false);
  });

  it('validates the fields, naming the offending one', async () => {
    const { token } = await createAgent(server, admin, { username: 'careless' });
    const empty = await server.post('/api/personal', { nickname: '', avatar: '', notify }, { token });
    expect(empty.status).toBe(400);
    expect(empty.body.msg).toContain('nickname');
    const script = await server.post('/api/personal', { nickname: 'x', avatar: 'javascript:alert(1)', notify }, { token });
    expect(script.status).toBe(400);
    expect(script.body.msg).toContain('avatar');
  });

  it('changes the password only with the current one and a password the policy accepts, then signs the agent out', async () => {
    const { token } = await createAgent(server, admin, { username: 'mover', password: 'first-pass-1' });
    const body = { nickname: 'mover', avatar: '', notify };

    const withoutOld = await server.post('/api/personal', { ...body, password: 'second-pass-2' }, { token });
    expect(withoutOld.status).toBe(400);
    expect(withoutOld.body.msg).toContain('oldPassword');

    const wrongOld = await server.post('/api/personal', { ...body, password: 'second-pass-2', oldPassword: 'not-it-at-all' }, { token });
    expect(wrongOld.status).toBe(400);
    expect(wrongOld.body.msg).toBe('Invalid field oldPassword: does not match the current password');

    const short = await server.post('/api/personal', { ...body, password: 'short', oldPassword: 'first-pass-1' }, { token });
    expect(short.status).toBe(400);
    expect(short.body.msg).toContain('password');
    const common = await server.post('/api/personal', { ...body, password: 'qwerty123456', oldPassword: 'first-pass-1' }, { token });
    expect(common.status).toBe(400);
    expect(common.body.msg).toContain('password');

    // Nothing above changed the password.
    expect((await server.get('/api/personal', { token })).status).toBe(200);
    const changed = await server.post('/api/personal', { ...body, password: 'second-pass-2', oldPassword: 'first-pass-1' }, { token });
    expect(changed.status).toBe(200);
    expect((await server.get('/api/personal', { token })).status).toBe(401);
    const oldLogin = await server.post('/api/login', { username: 'mover', password: 'first-pass-1' });
    expect(oldLogin.status).not.toBe(200);
    const fresh = await server.login('mover', 'second-pass-2');
    expect((await server.get<Personal>('/api/personal', { token: fresh })).body.data.username).toBe('mover');
  });
});
