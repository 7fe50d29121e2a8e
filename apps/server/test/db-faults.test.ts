import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@parley/protocol';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, backends } from './harness.js';
import { buildOnce, dropSchema, type ServerProcess, spawnServer } from './processes.js';
import { TestSocket } from './sockets.js';

/**
 * A TCP proxy in front of PostgreSQL that the test controls: `cut()` drops every connection and refuses
 * new ones, `restore()` accepts them again on the same port. The shared PostgreSQL itself is never stopped.
 */
class DatabaseProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly upstreamHost: string,
    private readonly upstreamPort: number,
  ) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = new Socket();
      this.track(client);
      this.track(upstream);
      upstream.connect(this.upstreamPort, this.upstreamHost);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (typeof address === 'object' && address) this.port = address.port;
    this.server = server;
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  /** The database goes away: open connections are reset, new ones refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  restore(): Promise<void> {
    return this.start();
  }
}

const describeOnPostgres = backends.postgres ? describe : describe.skip;

describeOnPostgres('PostgreSQL going away (CONTRACT §10)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-dbfault-'));
  const schema = `f_${randomBytes(6).toString('hex')}`;
  const applicationName = `parley_${schema}`;
  let proxy: DatabaseProxy;
  let server: ServerProcess;
  const heartbeats: TestSocket[] = [];
  let beat: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    await buildOnce();
    const upstream = new URL(backends.postgres ?? '');
    proxy = new DatabaseProxy(upstream.hostname, Number(upstream.port || 5432));
    await proxy.start();
    const viaProxy = new URL(upstream);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    viaProxy.searchParams.set('application_name', applicationName);
    server = await spawnServer('apps/server/dist/main.js', dataDir, schema, {
      DATABASE_URL: viaProxy.toString(),
      ADMIN_PASSWORD: ADMIN.password,
      // The leaver is reported past a short grace rather than the default 4 s.
      PRESENCE_GRACE_MS: '500',
      // Bursts of a few hundred visitor sends must meet the database, not the visitor message limits.
      RATE_LIMITS: 'visitorMessage.token=100000/10,visitorMessage.address=100000/10',
    });
    // The sockets under test keep their heartbeat, as the console and widget do.
    beat = setInterval(() => {
      for (const socket of heartbeats) if (socket.closeCode === undefined) socket.send('Y');
    }, 2000);
  }, 180_000);

  afterAll(async () => {
    clearInterval(beat);
    for (const socket of heartbeats) socket.close();
    await server?.stop();
    await proxy?.cut();
    await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async <T>(method: 'GET' | 'POST', path: string, options: { token?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = { 'accept-language': 'en' };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(server.url + path, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
    } catch (error) {
      // Say whether the process died, and how, rather than only that the request failed.
      const exited = new Promise((resolve) => (server.child.exitCode !== null ? resolve(null) : server.child.once('exit', resolve)));
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
      throw new Error(`${method} ${path} failed; server exit code ${server.child.exitCode}`, { cause: error });
    }
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: (text.startsWith('{') ? JSON.parse(text) : null) as { code: number; msg: string; data: T },
    };
  };

  /** Repeats `attempt` until it holds; a process that died makes fetch throw, which fails the test at once. */
  const eventually = async (attempt: () => Promise<boolean>, ms = 30_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      if (await attempt()) return;
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const ws = (path: string) => `${server.url.replace('http', 'ws')}${path}`;

  async function terminateServerConnections(): Promise<number> {
    const client = new pg.Client({ connectionString: backends.postgres });
    await client.connect();
    try {
      const result = await client.query('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1', [
        applicationName,
      ]);
      return result.rowCount ?? 0;
    } finally {
      await client.end();
    }
  }

  it('survives pg_terminate_backend and a full cut, answers 503 meanwhile, keeps sockets, and recovers by itself', async () => {
    const login = await call<{ token: string }>('POST', '/api/login', { body: { username: ADMIN.username, password: ADMIN.password } });
    expect(login.status).toBe(200);
    const token = login.body.data.token;
    const init = await call<{ YQToken: string }>('POST', '/api/visitor/init', { body: { url: 'https://shop.example/' } });
    const visitor = init.body.data.YQToken;
    const acknowledged: Message[] = [];
    for (let index = 0; index < 5; index += 1) {
      const sent = await call<Message>('POST', '/api/visitor/message', {
        body: { YQToken: visitor, msg: `before ${index}`, onlyID: `before-${index}` },
      });
      expect(sent.status).toBe(200);
      acknowledged.push(sent.body.data);
    }
    const agentSocket = await TestSocket.open(ws(`/ws/agent?token=${encodeURIComponent(token)}`));
    await agentSocket.frame('0000');
    const visitorSocket = await TestSocket.open(ws(`/ws/visitor?YQToken=${visitor}`));
    heartbeats.push(agentSocket, visitorSocket);
    // The visitor counts as online once the agent hears of it.
    await agentSocket.frame('8002');
    expect(visitorSocket.closeCode).toBeUndefined();

    // A second visitor, who will leave while the database is away.
    const leaverInit = await call<{ YQToken: string; id?: string }>('POST', '/api/visitor/init', {
      body: { url: 'https://shop.example/' },
    });
    const leaver = leaverInit.body.data;
    expect((await call('POST', '/api/visitor/message', { body: { YQToken: leaver.YQToken, msg: 'hi', onlyID: 'leaver-0' } })).status).toBe(
      200,
    );
    const leaverSocket = await TestSocket.open(ws(`/ws/visitor?YQToken=${leaver.YQToken}`));
    // Agents know a visitor by its public id (init's `id`), or by its token where there is none.
    const publicId = leaver.id ?? leaver.YQToken;
    const ofLeaver = (code: string) => (frame: unknown) =>
      (frame as { code: string }).code === code && (frame as { data?: { YQToken?: string } }).data?.YQToken === publicId;
    await agentSocket.until(() => agentSocket.frames.find(ofLeaver('8002')));

    // (a) The server's own connections are ended by PostgreSQL: the process lives on and serves again.
    expect(await terminateServerConnections()).toBeGreaterThan(0);
    await eventually(async () => (await call('GET', '/api/userInfo', { token })).status === 200);
    expect(server.child.exitCode).toBeNull();

    // (b) The database goes away entirely.
    await proxy.cut();
    await eventually(async () => (await call('GET', '/api/userInfo', { token })).status === 503);
    const during = await call('GET', '/api/userInfo', { token });
    expect(during.body).toEqual({ code: 503, msg: expect.stringMatching(/database|unavailable/i), data: null });
    expect(during.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(during.text).not.toMatch(/ECONNREFUSED|terminated|stack|select/i);
    const refusedSend = await call('POST', '/api/visitor/message', { body: { YQToken: visitor, msg: 'during', onlyID: 'during-0' } });
    expect(refusedSend.status).toBe(503);
    expect(refusedSend.body.code).toBe(503);
    expect((await call('GET', '/readyz')).status).toBe(503);
    expect((await call('GET', '/healthz')).status).toBe(200);
    const metrics = await call('GET', '/metrics');
    expect(metrics.text).toMatch(/^parley_http_errors_total\{method="GET",route="\/api\/userInfo"\} [1-9]/m);

    // A socket opened now hears "server fault", not "bad token": the console must not log out.
    const lateAgent = await TestSocket.open(ws(`/ws/agent?token=${encodeURIComponent(token)}`));
    expect(await lateAgent.closed()).toBe(1011);
    const lateVisitor = await TestSocket.open(ws(`/ws/visitor?YQToken=${visitor}`));
    expect(await lateVisitor.closed()).toBe(1011);

    // The sockets opened before the cut are still there and still answer the heartbeat.
    const echoes = agentSocket.texts.filter((text) => text === 'Y').length;
    agentSocket.send('Y');
    await agentSocket.until(() => agentSocket.texts.filter((text) => text === 'Y').length > echoes);
    const visitorEchoes = visitorSocket.texts.filter((text) => text === 'Y').length;
    visitorSocket.send('Y');
    await visitorSocket.until(() => visitorSocket.texts.filter((text) => text === 'Y').length > visitorEchoes);
    expect(agentSocket.closeCode).toBeUndefined();
    expect(visitorSocket.closeCode).toBeUndefined();
    expect(server.child.exitCode).toBeNull();

    // The second visitor leaves now; past the grace period, recording it fails for want of a database.
    leaverSocket.close();
    await eventually(async () => server.output().includes('visitor offline failed'));

    // The database returns: everything answers again without a restart.
    await proxy.restore();
    await eventually(async () => (await call('GET', '/readyz')).status === 200);
    await eventually(async () => (await call('GET', '/api/userInfo', { token })).status === 200);
    const after = await call<Message>('POST', '/api/visitor/message', { body: { YQToken: visitor, msg: 'after', onlyID: 'after-0' } });
    expect(after.status).toBe(200);
    const stored = await call<{ list: Message[] }>('GET', `/api/visitor/messages?YQToken=${visitor}&afterSeq=0`);
    for (const message of acknowledged) expect(stored.body.data.list.find((item) => item.onlyID === message.onlyID)?.seq).toBe(message.seq);
    expect(agentSocket.closeCode).toBeUndefined();
    expect(visitorSocket.closeCode).toBeUndefined();
    // The visitor who left during the outage is reported gone once the database is back.
    await agentSocket.until(() => agentSocket.frames.find(ofLeaver('8003')), 30_000);
    const fresh = await TestSocket.open(ws(`/ws/agent?token=${encodeURIComponent(token)}`));
    await fresh.frame('0000');
    fresh.close();
    expect(server.child.exitCode).toBeNull();
  }, 120_000);

  it('a database failure in the middle of a batch: every send is answered, nothing acknowledged is lost, and the refused ones are stored once when resent', async () => {
    await eventually(async () => (await call('GET', '/readyz')).status === 200);
    const visitors = 5;
    const perVisitor = 60;
    type Answer = { code: '8101'; data: Message } | { code: '8102'; data: { onlyID: string; status: number; msg: string } };
    const answersOf = (socket: TestSocket) =>
      socket.frames.filter((frame) => ['8101', '8102'].includes((frame as { code: string }).code)) as Answer[];
    const send = (socket: TestSocket, onlyID: string) => socket.send({ code: '8100', data: { msg: `line ${onlyID}`, onlyID } });
    const idsOf = (visitor: number) => Array.from({ length: perVisitor }, (_, index) => `batch-${visitor}-${index}`);

    const senders: { credential: string; socket: TestSocket }[] = [];
    for (let index = 0; index < visitors; index += 1) {
      const init = await call<{ YQToken: string }>('POST', '/api/visitor/init', { body: { url: 'https://shop.example/' } });
      expect(init.status).toBe(200);
      const socket = await TestSocket.open(ws(`/ws/visitor?YQToken=${init.body.data.YQToken}`));
      heartbeats.push(socket);
      senders.push({ credential: init.body.data.YQToken, socket });
    }
    // Connected ahead, so that ending the server's connections is a single round trip once the stream runs.
    const admin = new pg.Client({ connectionString: backends.postgres });
    await admin.connect();
    let answeredBeforeFault: number;
    let terminated: number;
    try {
      // Every send goes out at once, the visitors' lines interleaved: the server's batches mix them.
      for (let index = 0; index < perVisitor; index += 1) {
        for (const [visitor, { socket }] of senders.entries()) send(socket, idsOf(visitor)[index] ?? '');
      }
      const [firstSender] = senders;
      await firstSender?.socket.until(() => answersOf(firstSender.socket).length >= 3, 20_000);
      const ended = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
        applicationName,
      ]);
      terminated = ended.rowCount ?? 0;
      answeredBeforeFault = senders.reduce((sum, { socket }) => sum + answersOf(socket).length, 0);
    } finally {
      await admin.end();
    }
    expect(terminated).toBeGreaterThan(0);
    // The fault came while sends were still on their way, else this test would prove nothing.
    expect(answeredBeforeFault).toBeLessThan(visitors * perVisitor);

    // Every send is answered, once: stored (8101), or refused as the database being away (8102 503).
    for (const [visitor, { socket }] of senders.entries()) {
      await socket.until(() => answersOf(socket).length >= perVisitor, 30_000);
      const answers = answersOf(socket);
      expect(answers.map((answer) => answer.data.onlyID).sort()).toEqual(idsOf(visitor).sort());
      for (const answer of answers) {
        if (answer.code === '8102') expect(answer.data).toEqual({ onlyID: answer.data.onlyID, status: 503, msg: expect.any(String) });
      }
    }
    expect(server.child.exitCode).toBeNull();

    // Once the database answers again, what was acknowledged is there, once, as it was acknowledged.
    await eventually(async () => (await call('GET', '/readyz')).status === 200);
    const storedOf = async (credential: string) => {
      const list: Message[] = [];
      for (;;) {
        const page = await call<{ list: Message[] }>(
          'GET',
          `/api/visitor/messages?YQToken=${credential}&afterSeq=${list.at(-1)?.seq ?? 0}`,
        );
        expect(page.status).toBe(200);
        if (page.body.data.list.length === 0) return list;
        list.push(...page.body.data.list);
      }
    };
    for (const { credential, socket } of senders) {
      const stored = await storedOf(credential);
      for (const answer of answersOf(socket)) {
        if (answer.code !== '8101') continue;
        expect(stored.filter((message) => message.onlyID === answer.data.onlyID)).toEqual([
          expect.objectContaining({ seq: answer.data.seq, msg: answer.data.msg, role: 'user' }),
        ]);
      }
    }

    // The widget resends every refused line over its socket: each is stored once, seq without a gap.
    for (const { socket } of senders) {
      const refused = answersOf(socket)
        .filter((answer) => answer.code === '8102')
        .map((answer) => answer.data.onlyID);
      const before = answersOf(socket).length;
      for (const onlyID of refused) send(socket, onlyID);
      await socket.until(() => answersOf(socket).length >= before + refused.length, 30_000);
      expect(answersOf(socket).slice(before)).toEqual(
        refused.map((onlyID) => ({ code: '8101', data: expect.objectContaining({ onlyID }) })),
      );
    }
    for (const [visitor, { credential }] of senders.entries()) {
      const stored = await storedOf(credential);
      expect(stored.map((message) => message.seq)).toEqual(Array.from({ length: stored.length }, (_, index) => index + 1));
      const lines = stored.filter((message) => message.role === 'user').map((message) => message.onlyID);
      expect(lines.sort()).toEqual(idsOf(visitor).sort());
    }
  }, 120_000);
});
