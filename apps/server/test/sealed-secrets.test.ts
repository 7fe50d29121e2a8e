import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RobotHighAnswer } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/db/index.js';
import { KEY_FILE, loadSealer, SealError, Sealer } from '../src/lib/sealed.js';
import { SettingsRepository } from '../src/modules/settings/repository.js';
import { startTestServer, type TestServer } from './harness.js';

const SMTP = {
  host: 'smtp.example.com',
  port: 465,
  secure: true,
  user: 'bot',
  password: 'smtp-pass-9c1e',
  from: 'bot@example.com',
  to: [],
};
const WECHAT = { appId: 'wx-1', appSecret: 'app-secret-5d2f', token: 'push-token-88aa', aesKey: 'aes-key-0b7c' };

/** Every row of the settings table as it lies on disk: what a copy of the database would give away. */
async function rawSettings(server: TestServer): Promise<string> {
  const rows = await server.storage.db.selectFrom('settings').select(['page', 'value']).execute();
  return JSON.stringify(rows);
}

describe('secrets sealed at rest (finding 8)', () => {
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
  });
  afterAll(() => server.close());

  it('keeps no clear secret in the database, and the server still uses them', async () => {
    expect((await server.post('/api/settings/softwareSetting', { smtp: SMTP }, { token: admin })).status).toBe(200);
    expect(
      (await server.post('/api/settings/weChatSetting', { officialAccount: WECHAT, miniProgram: WECHAT }, { token: admin })).status,
    ).toBe(200);
    const high = (await server.get<RobotHighAnswer>('/api/robot/high', { token: admin })).body.data;
    const llm = { ...high.llm, enabled: true, baseUrl: 'https://llm.example/v1', model: 'm', apiKey: 'sk-model-key-71f3' };
    expect((await server.post('/api/robot/high', { ...high, llm }, { token: admin })).status).toBe(200);

    const stored = await rawSettings(server);
    for (const secret of [SMTP.password, WECHAT.appSecret, WECHAT.token, WECHAT.aesKey, llm.apiKey]) expect(stored).not.toContain(secret);
    expect(stored).toContain('sealed:v1:');

    // What the server reads back is the clear value: the same repository with the key from DATA_DIR opens it.
    const sealer = loadSealer(server.config.dataDir, undefined);
    const repo = new SettingsRepository(server.storage.db, sealer, () => undefined);
    expect(JSON.parse((await repo.one('softwareSetting')) ?? '{}').smtp.password).toBe(SMTP.password);
    expect(JSON.parse((await repo.one('robotHigh')) ?? '{}').llm.apiKey).toBe(llm.apiKey);
    expect(JSON.parse((await repo.one('weChatSetting')) ?? '{}').miniProgram.aesKey).toBe(WECHAT.aesKey);
  });

  it('does not open with another key: the secret reads as unset and the failure is told', async () => {
    const other = new Sealer(Buffer.alloc(32, 7));
    const failures: string[] = [];
    const repo = new SettingsRepository(server.storage.db, other, (page) => failures.push(page));
    expect(JSON.parse((await repo.one('softwareSetting')) ?? '{}').smtp).toMatchObject({ user: 'bot', password: '' });
    expect(failures).toEqual(['softwareSetting']);
  });

  it('keeps its key file outside the database, readable by its owner only', () => {
    const file = join(server.config.dataDir, KEY_FILE);
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
  });
});

describe('settings stored before sealing', () => {
  let server: TestServer;
  afterAll(() => server.close());

  it('are sealed at the next start, and read as before', async () => {
    server = await startTestServer(
      {},
      {
        beforeMigrate: async (storage) => {
          await migrate(storage);
          const at = new Date().toISOString();
          const value = JSON.stringify({ smtp: { ...SMTP, password: 'legacy-clear-pass' } });
          await storage.db.insertInto('settings').values({ page: 'softwareSetting', value, updated_at: at, updated_by: 'admin' }).execute();
        },
      },
    );
    expect(await rawSettings(server)).not.toContain('legacy-clear-pass');
    const admin = await server.login();
    const page = await server.get<{ smtp: { hasPassword: boolean; user: string } }>('/api/settings/softwareSetting', { token: admin });
    expect(page.body.data.smtp).toMatchObject({ user: 'bot', hasPassword: true });
  });
});

describe('the sealing key', () => {
  it('comes from SECRET_KEY when set, with no key file, and binds each value to its field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-key-'));
    try {
      const a = loadSealer(dir, 'a long operator secret of at least 32 chars');
      const b = loadSealer(dir, 'a long operator secret of at least 32 chars');
      expect(existsSync(join(dir, KEY_FILE))).toBe(false);
      const sealed = a.seal('hunter2-hunter2', 'settings:softwareSetting:smtp.password');
      expect(b.open(sealed, 'settings:softwareSetting:smtp.password')).toBe('hunter2-hunter2');
      expect(() => b.open(sealed, 'settings:robotHigh:llm.apiKey')).toThrow(SealError);
      expect(() =>
        loadSealer(dir, 'another operator secret, 32 chars long').open(sealed, 'settings:softwareSetting:smtp.password'),
      ).toThrow(/another key/);
      // Two seals of one value differ: equal secrets cannot be spotted in a copy.
      expect(a.seal('same', 'p')).not.toBe(a.seal('same', 'p'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is created once in DATA_DIR and read by every later start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-key-'));
    try {
      const first = loadSealer(dir, undefined);
      const second = loadSealer(dir, undefined);
      expect(second.keyId).toBe(first.keyId);
      expect(second.open(first.seal('x', 'p'), 'p')).toBe('x');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
