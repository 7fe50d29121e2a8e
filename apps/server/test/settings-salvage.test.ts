import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/db/index.js';
import { startTestServer, type TestServer } from './harness.js';

/** Pages as an older version stored them, before the address and WeChat rules tightened. */
const OLD_PAGES = {
  floatNavigation: {
    enabled: true,
    side: 'left',
    items: [
      { type: 'chat', title: 'Chat' },
      { type: 'wechat', title: 'WeChat', value: 'javascript:alert(1)' },
      { type: 'phone', title: 'Call us', value: '400-800-1234' },
    ],
  },
  windowStyle: { title: 'Acme help', color: '#ff6600', logo: '/\\evil.example/x.png', agentAvatar: '/uploads/agent.png' },
};

describe('settings stored before today’s rules', () => {
  let server: TestServer;
  afterAll(() => server.close());

  it('keep every value the rules still accept; only the failing ones are left out, and the log says which', async () => {
    server = await startTestServer(
      { LOG_LEVEL: 'error' },
      {
        beforeMigrate: async (storage) => {
          await migrate(storage);
          const at = new Date().toISOString();
          for (const [page, value] of Object.entries(OLD_PAGES)) {
            await storage.db
              .insertInto('settings')
              .values({ page, value: JSON.stringify(value), updated_at: at, updated_by: 'admin' })
              .execute();
          }
        },
      },
    );
    const admin = await server.login();
    const nav = await server.get<{ enabled: boolean; side: string; items: { type: string; title: string }[] }>(
      '/api/settings/floatNavigation',
      {
        token: admin,
      },
    );
    expect(nav.body.data).toMatchObject({ enabled: true, side: 'left' });
    expect(nav.body.data.items.map((item) => item.title)).toEqual(['Chat', 'Call us']);
    const style = await server.get<Record<string, unknown>>('/api/settings/windowStyle', { token: admin });
    expect(style.body.data).toMatchObject({ title: 'Acme help', color: '#ff6600', logo: '', agentAvatar: '/uploads/agent.png' });
    const told = server.logs.map((line) => String(line.err && (line.err as { message?: string }).message)).join('\n');
    expect(told).toContain('floatNavigation breaks today');
    expect(told).toContain('windowStyle breaks today');
    expect(told).toContain('logo');
  });
});

describe('smart-robot settings stored before the model URL rules', () => {
  let server: TestServer;
  afterAll(() => server.close());

  it('keep the robot on, without the URL that now fails', async () => {
    const stored = {
      enabled: true,
      mode: 'first',
      name: 'Ada',
      welcome: 'Hi',
      llm: { enabled: true, baseUrl: 'https://llm.example/v1?key=abc', model: 'm', apiKey: '', timeoutMs: 5000 },
    };
    server = await startTestServer(
      {},
      {
        beforeMigrate: async (storage) => {
          await migrate(storage);
          const at = new Date().toISOString();
          await storage.db
            .insertInto('settings')
            .values({ page: 'robotHigh', value: JSON.stringify(stored), updated_at: at, updated_by: 'admin' })
            .execute();
        },
      },
    );
    const admin = await server.login();
    const high = await server.get<{ enabled: boolean; name: string; llm: { baseUrl: string; model: string } }>('/api/robot/high', {
      token: admin,
    });
    expect(high.body.data).toMatchObject({ enabled: true, name: 'Ada', llm: { baseUrl: '', model: 'm' } });
  });
});
