import type { ListData, LoginRecord, UserInfo, VisitorInit, WidgetSettings } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { framesOf } from './chat-harness.js';
import { APP_ROOT, createAgent, startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer({ SITE_TIMEZONE: 'Pacific/Honolulu' });
  admin = await server.login();
  // A sign-in at 23:30 on 21 November in Honolulu, already 22 November in UTC.
  await server.storage.db
    .insertInto('login_log')
    .values({
      username: 'late-owl',
      agent_id: null,
      ip: '127.0.0.1',
      user_agent: 'test',
      result: 'success',
      reason: '',
      counted: 0,
      created_at: '2026-11-22T09:30:00.000Z',
    })
    .execute();
});
afterAll(() => server.close());

const lateOwl = async (query: string) => {
  const response = await server.get<ListData<LoginRecord>>(`/api/record/getList?username=late-owl&${query}`, { token: admin });
  expect(response.status).toBe(200);
  return response.body.data.list.map((record) => record.created_at);
};

describe('SITE_TIMEZONE', () => {
  it('refuses a zone that is not an IANA zone, and defaults to the server zone', () => {
    expect(() => loadConfig({ SITE_TIMEZONE: 'Mars/Olympus' }, APP_ROOT)).toThrow(ConfigError);
    expect(loadConfig({}, APP_ROOT).siteTimeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it('is told to the console in GET /api/userInfo', async () => {
    expect((await server.get('/api/userInfo')).status).toBe(401);
    const { token } = await createAgent(server, admin, { username: 'zone-agent' });
    const info = await server.get<UserInfo>('/api/userInfo', { token });
    expect(info.body.data.timezone).toBe('Pacific/Honolulu');
  });
});

describe('GET /api/record/getList by site day', () => {
  it('finds a sign-in on the Honolulu day it happened, not on the UTC day', async () => {
    expect(await lateOwl('from=2026-11-21&to=2026-11-21')).toEqual(['2026-11-22T09:30:00.000Z']);
    expect(await lateOwl('from=2026-11-22&to=2026-11-22')).toEqual([]);
    expect(await lateOwl('to=2026-11-20')).toEqual([]);
  });

  it('still takes ISO instants as they are', async () => {
    expect(await lateOwl('from=2026-11-22T09:30:00Z&to=2026-11-22T09:30:00Z')).toEqual(['2026-11-22T09:30:00.000Z']);
    expect(await lateOwl('from=2026-11-22T09:30:00.001Z')).toEqual([]);
  });
});

describe('the widget’s settings', () => {
  it('carry the site’s zone, in which the widget reads the invitation’s days and hours; a saved zone reaches open widgets', async () => {
    const init = await server.post<VisitorInit>('/api/visitor/init', { url: 'https://shop.example/', lang: 'en' });
    expect(init.body.data.settings.timeZone).toBe('Pacific/Honolulu');
    const socket = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${init.body.data.YQToken}`);
    try {
      expect((await server.post('/api/settings/softwareSetting', { timezone: 'Asia/Shanghai' }, { token: admin })).status).toBe(200);
      const pushed = await socket.until(() =>
        framesOf(socket, '2020')
          .map((frame) => frame.data as WidgetSettings)
          .find((settings) => settings.timeZone === 'Asia/Shanghai'),
      );
      expect(pushed.timeZone).toBe('Asia/Shanghai');
    } finally {
      await server.post('/api/settings/softwareSetting', {}, { token: admin });
      socket.close();
    }
  });
});
