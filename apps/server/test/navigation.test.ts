import type { RouteRecord, SearchSuggestion } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;
let agent: string | undefined;
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  agent = (await createAgent(server, admin, { username: 'nav-agent' })).token;
});
afterAll(() => server.close());

const paths = (routes: RouteRecord[]) => routes.map((route) => route.path);

describe('GET /api/router/getList', () => {
  it('gives the administrator every business route and an agent only what its role opens', async () => {
    const full = await server.get<{ list: RouteRecord[] }>('/api/router/getList', { token: admin });
    expect(full.status).toBe(200);
    expect(paths(full.body.data.list)).toEqual([
      '/',
      '/workbench',
      '/service',
      '/user',
      '/census',
      '/history',
      '/link',
      '/robot',
      '/system',
      '/personal',
      '/access',
    ]);
    const limited = await server.get<{ list: RouteRecord[] }>('/api/router/getList', { token: agent });
    expect(paths(limited.body.data.list)).toEqual(['/', '/workbench', '/history']);
    const workbench = limited.body.data.list[1];
    expect(workbench?.children?.[0]).toMatchObject({ path: 'workbench', meta: { title: 'dialogue' } });
  });
});

describe('GET /api/search/getList', () => {
  it('finds the menu entries the user may open by a lower-case contains match, in the asked language', async () => {
    const en = await server.get<{ list: SearchSuggestion[] }>('/api/search/getList?keyword=LOG', { token: admin, lang: 'en' });
    expect(en.body.data.list).toContainEqual({ value: 'Login log', url: '#/service/record' });
    expect(en.body.data.list.every((entry) => `${entry.value} ${entry.url}`.toLowerCase().includes('log'))).toBe(true);
    const zh = await server.get<{ list: SearchSuggestion[] }>(`/api/search/getList?keyword=${encodeURIComponent('日志')}`, {
      token: admin,
      lang: 'zh',
    });
    expect(zh.body.data.list).toEqual([
      { value: '登录日志', url: '#/service/record' },
      { value: '操作日志', url: '#/service/audit' },
    ]);
    const hiddenPages = await server.get<{ list: SearchSuggestion[] }>('/api/search/getList?keyword=detail', { token: admin });
    expect(hiddenPages.body.data.list).toEqual([]);
    const forAgent = await server.get<{ list: SearchSuggestion[] }>('/api/search/getList?keyword=log', { token: agent, lang: 'en' });
    expect(forAgent.body.data.list.map((entry) => entry.url)).not.toContain('#/service/record');
    expect(forAgent.body.data.list.map((entry) => entry.url)).not.toContain('#/service/audit');
  });
});

describe('GET /api/notice/getList', () => {
  it('is empty when nothing waits, and tells a manager of accounts awaiting approval', async () => {
    const empty = await server.get<{ list: unknown[]; total: number }>('/api/notice/getList', { token: admin });
    expect(empty.body.data).toEqual({ list: [], total: 0 });
    await server.post('/api/register', { username: 'waiting-1', password: 'secret-pass-123' });
    await server.post('/api/register', { username: 'waiting-2', password: 'secret-pass-123' });
    const notices = await server.get<{ list: { kind: string; notice: string; url: string }[] }>('/api/notice/getList', {
      token: admin,
      lang: 'en',
    });
    expect(notices.body.data.list).toEqual([
      expect.objectContaining({ kind: 'registration', notice: 'Registered accounts waiting to be enabled: 2', url: '#/service/service' }),
    ]);
    const forAgent = await server.get<{ list: unknown[] }>('/api/notice/getList', { token: agent });
    expect(forAgent.body.data.list).toEqual([]);
  });

  it('tells of unread leave-messages those who may read them', async () => {
    await server.post('/api/visitor/letter', { name: 'Ann', content: 'Please call me back' });
    const notices = await server.get<{ list: { kind: string; notice: string; url: string }[] }>('/api/notice/getList', {
      token: agent,
      lang: 'en',
    });
    expect(notices.body.data.list).toEqual([
      expect.objectContaining({ kind: 'letter', notice: 'Unread leave-messages: 1', url: '#/history/letter' }),
    ]);
  });
});
