import type { ListData, Role } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test/server';
import { createHttp, type Http, type HttpDeps } from './http';

interface Harness {
  http: Http;
  token: string;
  calls: string[];
  unauthorized: number;
  forbidden: number;
  notices: string[];
}

function harness(server: TestServer, token = ''): Harness {
  const state: Harness = { http: undefined as unknown as Http, token, calls: [], unauthorized: 0, forbidden: 0, notices: [] };
  const deps: HttpDeps = {
    baseUrl: server.url,
    getToken: () => state.token,
    setToken: (value) => {
      state.token = value;
    },
    language: () => 'en',
    onUnauthorized: () => {
      state.unauthorized++;
    },
    onForbidden: () => {
      state.forbidden++;
    },
    notify: (message) => state.notices.push(message),
    describe: (key) => key,
    timeout: 10_000,
    successCodes: [200, 0, '200', '0'],
    loadingFragment: 'doEdit',
    fetch: (input, init) => {
      state.calls.push(`${init?.method ?? 'GET'} ${String(input).replace(server.url, '')}`);
      return fetch(input, init);
    },
  };
  state.http = createHttp(deps);
  return state;
}

async function login(server: TestServer, username: string, password: string): Promise<string> {
  const response = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = (await response.json()) as { data: { token: string } };
  return body.data.token;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HTTP client session policy against the real server', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ TOKEN_TTL: '1', REFRESH_TTL: '600' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('402: concurrent requests share exactly one refresh, then replay, a POST included once', async () => {
    const h = harness(server, await login(server, 'admin', server.adminPassword));
    const first = h.token;
    await sleep(1300);
    const results = await Promise.all([
      h.http.get<{ username: string }>('/api/userInfo'),
      h.http.get<{ username: string }>('/api/userInfo'),
      h.http.get<ListData<Role>>('/api/role/getList', { params: { pageNo: 1, pageSize: 20 } }),
      h.http.post<{ id: number }>('/api/role/doEdit', { name: 'Replayed once', permissions: [] }),
    ]);
    expect(results[0]).toMatchObject({ username: 'admin' });
    expect(results[3]).toHaveProperty('id');
    expect(h.calls.filter((call) => call.includes('/api/refreshToken'))).toHaveLength(1);
    expect(h.token).not.toBe(first);
    expect(h.unauthorized).toBe(0);
    const roles = await h.http.get<ListData<Role>>('/api/role/getList', { params: { pageNo: 1, pageSize: 100 } });
    expect(roles.list.filter((role) => role.name === 'Replayed once')).toHaveLength(1);
    // The old token stopped working with the refresh.
    const old = harness(server, first);
    await expect(old.http.get('/api/userInfo')).rejects.toMatchObject({ code: 401 });
  });

  it('a file goes as multipart under the same policy: an expired token is refreshed once and the upload sent again', async () => {
    const h = harness(server, await login(server, 'admin', server.adminPassword));
    await sleep(1300);
    const pixel = Uint8Array.from(
      atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
      (char) => char.charCodeAt(0),
    );
    const form = new FormData();
    form.append('file', new File([pixel], 'pixel.png', { type: 'image/png' }));
    const stored = await h.http.post<{ url: string }>('/api/talk/upload', form);
    expect(stored.url).toMatch(/^\/api\/files\//);
    expect(h.calls.filter((call) => call === 'POST /api/talk/upload')).toHaveLength(2);
    expect(h.calls.filter((call) => call.includes('/api/refreshToken'))).toHaveLength(1);
    const image = await fetch(`${server.url}${stored.url}`);
    expect(image.headers.get('content-type')).toContain('image/png');
  });

  it('401: a revoked token ends the session and shows the server message', async () => {
    const h = harness(server, await login(server, 'admin', server.adminPassword));
    await h.http.get('/api/login/logOut');
    await expect(h.http.get('/api/userInfo')).rejects.toMatchObject({ code: 401 });
    expect(h.unauthorized).toBe(1);
    expect(h.notices).toHaveLength(1);
    expect(h.notices[0]).not.toBe('http.status.401');
  });

  it('403: a user without the permission is sent to the forbidden page', async () => {
    const admin = harness(server, await login(server, 'admin', server.adminPassword));
    const roles = await admin.http.get<ListData<Role>>('/api/role/getList', { params: { pageNo: 1, pageSize: 100, name: 'Agent' } });
    const agentRole = roles.list.find((role) => role.name === 'Agent');
    expect(agentRole).toBeDefined();
    await admin.http.post('/api/service/doEdit', {
      username: 'agent403',
      nickname: 'Agent 403',
      password: 'agent-pass-1',
      roleId: agentRole?.id,
    });
    const agent = harness(server, await login(server, 'agent403', 'agent-pass-1'));
    await expect(agent.http.get('/api/service/getList')).rejects.toMatchObject({ code: 403 });
    expect(agent.forbidden).toBe(1);
    expect(agent.unauthorized).toBe(0);
  });

  it('silent calls neither toast nor redirect', async () => {
    const h = harness(server, await login(server, 'admin', server.adminPassword));
    await expect(h.http.get('/api/no-such-endpoint', { silent: true })).rejects.toMatchObject({ code: 404 });
    expect(h.notices).toHaveLength(0);
    expect(h.forbidden + h.unauthorized).toBe(0);
  });

  it('sends falsy fields as they are', async () => {
    const h = harness(server, await login(server, 'admin', server.adminPassword));
    await h.http.get('/api/record/getList', { params: { pageNo: 1, pageSize: 20, username: '' } }).catch(() => undefined);
    expect(h.calls.at(-1)).toContain('username=');
  });
});

describe('HTTP client without a server', () => {
  it('a failed refresh ends the session once and does not resend', async () => {
    const calls: string[] = [];
    let unauthorized = 0;
    const http = createHttp({
      baseUrl: '',
      getToken: () => 'expired',
      setToken: () => undefined,
      language: () => 'zh',
      onUnauthorized: () => {
        unauthorized++;
      },
      onForbidden: () => undefined,
      notify: () => undefined,
      describe: (key) => key,
      timeout: 1000,
      successCodes: [200],
      loadingFragment: 'doEdit',
      fetch: async (input) => {
        calls.push(String(input));
        const refresh = String(input).includes('refreshToken');
        return new Response(JSON.stringify({ code: refresh ? 401 : 402, msg: 'x', data: null }), { status: refresh ? 401 : 402 });
      },
    });
    await expect(http.post('/api/role/doEdit', { name: 'x' })).rejects.toMatchObject({ code: 401 });
    expect(unauthorized).toBe(1);
    expect(calls).toEqual(['/api/role/doEdit', '/api/refreshToken']);
  });

  it('a network failure is reported and a POST is not retried', async () => {
    const calls: string[] = [];
    const notices: string[] = [];
    const http = createHttp({
      baseUrl: '',
      getToken: () => 't',
      setToken: () => undefined,
      language: () => 'zh',
      onUnauthorized: () => undefined,
      onForbidden: () => undefined,
      notify: (message) => notices.push(message),
      describe: (key) => key,
      timeout: 1000,
      successCodes: [200],
      loadingFragment: 'doEdit',
      fetch: async (input) => {
        calls.push(String(input));
        throw new TypeError('failed');
      },
    });
    await expect(http.post('/api/service/doEdit', {})).rejects.toMatchObject({ transport: 'network' });
    expect(calls).toHaveLength(1);
    expect(notices).toEqual(['http.network']);
  });

  it('accepts every success code of the seed and shows the status text when the server gives none', async () => {
    for (const code of [200, 0, '200', '0']) {
      const http = createHttp({
        baseUrl: '',
        getToken: () => '',
        setToken: () => undefined,
        language: () => 'zh',
        onUnauthorized: () => undefined,
        onForbidden: () => undefined,
        notify: () => undefined,
        describe: (key) => key,
        timeout: 1000,
        successCodes: [200, 0, '200', '0'],
        loadingFragment: 'doEdit',
        fetch: async () => new Response(JSON.stringify({ code, msg: '', data: 7 }), { status: 200 }),
      });
      await expect(http.get('/x')).resolves.toBe(7);
    }
    const notices: string[] = [];
    const failing = createHttp({
      baseUrl: '',
      getToken: () => '',
      setToken: () => undefined,
      language: () => 'zh',
      onUnauthorized: () => undefined,
      onForbidden: () => undefined,
      notify: (message) => notices.push(message),
      describe: (key) => key,
      timeout: 1000,
      successCodes: [200],
      loadingFragment: 'doEdit',
      fetch: async () => new Response('bad gateway', { status: 502 }),
    });
    await expect(failing.get('/x')).rejects.toMatchObject({ code: 502 });
    expect(notices).toEqual(['http.status.502']);
  });
});

describe('HTTP client downloads', () => {
  function client(answers: Response[], calls: string[], notices: string[]) {
    let token = 'expired';
    return createHttp({
      baseUrl: '',
      getToken: () => token,
      setToken: (value) => {
        token = value;
      },
      language: () => 'en',
      onUnauthorized: () => undefined,
      onForbidden: () => undefined,
      notify: (message) => notices.push(message),
      describe: (key) => key,
      timeout: 1000,
      successCodes: [200],
      loadingFragment: 'doEdit',
      fetch: async (input, init) => {
        calls.push(`${String(input)} ${new Headers(init?.headers).get('Authorization') ?? ''}`);
        const next = answers.shift();
        if (!next) throw new TypeError('no answer');
        return next;
      },
    });
  }

  it('refreshes an expired token once, then answers the file and its name', async () => {
    const calls: string[] = [];
    const csv = new Response('\ufeffa,b\n1,2\n', {
      status: 200,
      headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="history-2026-11-23.csv"' },
    });
    const http = client(
      [
        new Response(JSON.stringify({ code: 402, msg: 'expired', data: null }), { status: 402 }),
        new Response(JSON.stringify({ code: 200, msg: 'ok', data: { token: 'fresh' } }), { status: 200 }),
        csv,
      ],
      calls,
      [],
    );
    const file = await http.download('/api/history/export', { params: { keyword: 'kettle' } });
    expect(file.fileName).toBe('history-2026-11-23.csv');
    expect(await file.blob.text()).toContain('1,2');
    expect(calls).toEqual([
      '/api/history/export?keyword=kettle Bearer expired',
      '/api/refreshToken Bearer expired',
      '/api/history/export?keyword=kettle Bearer fresh',
    ]);
  });

  it('reports a refused download with the server message', async () => {
    const notices: string[] = [];
    const http = client(
      [new Response(JSON.stringify({ code: 400, msg: 'Invalid field score', data: null }), { status: 400 })],
      [],
      notices,
    );
    await expect(http.download('/api/history/export')).rejects.toMatchObject({ code: 400, message: 'Invalid field score' });
    expect(notices).toEqual(['Invalid field score']);
  });
});
