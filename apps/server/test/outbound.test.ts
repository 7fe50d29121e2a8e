import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Message, RobotHighAnswer } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { OutboundClient, OutboundError } from '../src/lib/outbound.js';
import { framesOf, visitor } from './chat-harness.js';
import { APP_ROOT, createAgent, startTestServer, type TestServer } from './harness.js';

interface Seen {
  path: string;
  auth: string | undefined;
}

/** A stand-in for an OpenAI-compatible model, or for an attacker's host: records what reaches it. */
async function standIn(answer: (req: IncomingMessage, res: import('node:http').ServerResponse) => void) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const completion = (content: string) => (_req: IncomingMessage, res: import('node:http').ServerResponse) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
};

const ROBOT = { enabled: true, mode: 'first' as const, name: 'Ada', unknownReply: 'Sorry, I do not know that yet.', threshold: 0.5 };

describe('the robot model URL (finding 1)', () => {
  let server: TestServer;
  let admin: string;
  let keeper: string;
  const doubles: { close(): Promise<unknown> }[] = [];

  beforeAll(async () => {
    // The stand-ins listen on loopback, which only OUTBOUND_ALLOW opens.
    server = await startTestServer({ OUTBOUND_ALLOW: '127.0.0.1' });
    admin = await server.login();
    await server.post('/api/role/doEdit', { name: 'Robots', permissions: ['setPermissions:robotSettings'] }, { token: admin });
    keeper = (await createAgent(server, admin, { username: 'robot-keeper', role: 'Robots' })).token ?? '';
    const pair = { questions: ['How long does shipping take?'], answer: 'Three to five days.' };
    expect((await server.post('/api/robot/ask/doEdit', pair, { token: admin })).status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all(doubles.map((double) => double.close()));
    await server.close();
  });

  const high = async (token: string) => (await server.get<RobotHighAnswer>('/api/robot/high', { token })).body.data;
  const saveModel = async (token: string, llm: Partial<RobotHighAnswer['llm']>) => {
    const current = await high(admin);
    return server.post<RobotHighAnswer>(
      '/api/robot/high',
      { ...current, ...ROBOT, llm: { ...current.llm, enabled: true, model: 'm', ...llm } },
      { token },
    );
  };
  /** The robot's first message to a new visitor who asks `question` (no welcome is configured). */
  const robotReply = async (question: string) => {
    const v = await visitor(server);
    await v.say(question);
    const said = await v.socket.until(() => {
      const robot = framesOf(v.socket, '8005')
        .map((frame) => frame.data as Message)
        .filter((message) => message.role === 'robot');
      return robot[0];
    });
    v.socket.close();
    return said;
  };

  it("never sends the Admin's key to a URL a robot keeper sets", async () => {
    const model = await standIn(completion('Shipping takes three to five days.'));
    const theirs = await standIn(completion('Send your card number to evil.example'));
    doubles.push(model, theirs);
    expect((await saveModel(admin, { baseUrl: `${model.url}/v1`, apiKey: 'sk-admin-key' })).status).toBe(200);
    expect((await robotReply('How long does shipping take?')).msg).toBe('Shipping takes three to five days.');
    expect(model.seen.at(-1)?.auth).toBe('Bearer sk-admin-key');

    // Pointing the stored key at a new URL is the Admin's alone.
    const withKey = await saveModel(keeper, { baseUrl: `${theirs.url}/v1`, apiKey: 'sk-their-own' });
    expect(withKey.status).toBe(403);
    expect((await high(admin)).llm).toMatchObject({ baseUrl: `${model.url}/v1`, hasApiKey: true });

    // Repointed without a key: the stored key is dropped with the old URL, not carried to the new one.
    const repointed = await saveModel(keeper, { baseUrl: `${theirs.url}/v1`, apiKey: '' });
    expect(repointed.status).toBe(200);
    expect(repointed.body.data.llm).toMatchObject({ baseUrl: `${theirs.url}/v1`, hasApiKey: false });
    await robotReply('How long does shipping take?');
    expect(theirs.seen.length).toBeGreaterThan(0);
    expect(theirs.seen.every((request) => request.auth === undefined)).toBe(true);
  });

  it('does not follow a redirect: its target is never asked, and its text never reaches the visitor', async () => {
    const target = await standIn(completion('LEAKED internal text'));
    const redirecting = await standIn((_req, res) => {
      res.writeHead(302, { location: `${target.url}/v1/chat/completions` });
      res.end();
    });
    doubles.push(target, redirecting);
    expect((await saveModel(admin, { baseUrl: `${redirecting.url}/v1`, apiKey: 'sk-admin-key' })).status).toBe(200);
    const reply = await robotReply('How long does shipping take?');
    expect(reply.msg).toBe(ROBOT.unknownReply);
    expect(redirecting.seen).toHaveLength(1);
    expect(target.seen).toHaveLength(0);
  });

  it('appends its path to the URL: a query or fragment cannot take the path over', async () => {
    for (const baseUrl of ['http://127.0.0.1:9/v1?x=', 'http://127.0.0.1:9/v1#', 'http://user:pass@127.0.0.1:9/v1']) {
      const saved = await saveModel(admin, { baseUrl, apiKey: '' });
      expect(saved.status, baseUrl).toBe(400);
      expect(saved.body.msg).toMatch(/^Invalid field llm\.baseUrl/);
    }
  });
});

describe('model URLs that reach the server’s own network (finding 1)', () => {
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
  });
  afterAll(() => server.close());

  it('refuses loopback, private, link-local and mapped addresses when saved', async () => {
    const current = (await server.get<RobotHighAnswer>('/api/robot/high', { token: admin })).body.data;
    for (const baseUrl of [
      'http://127.0.0.1:8080/v1',
      'http://localhost:8080/v1',
      'http://169.254.169.254/latest',
      'http://[::1]:8080/v1',
      'http://[::ffff:127.0.0.1]:8080/v1',
      'http://[fe80::1]/v1',
      'http://10.0.0.8/v1',
      'http://192.168.1.1/v1',
      'http://0x7f000001/v1',
      'http://0.0.0.0:8080/v1',
    ]) {
      const saved = await server.post(
        '/api/robot/high',
        { ...current, llm: { ...current.llm, enabled: true, baseUrl, model: 'm' } },
        { token: admin },
      );
      expect(saved.status, baseUrl).toBe(400);
      expect(saved.body.msg).toContain('llm.baseUrl');
    }
    expect((await server.get<RobotHighAnswer>('/api/robot/high', { token: admin })).body.data.llm.baseUrl).toBe('');
  });
});

describe('OutboundClient', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  it('refuses every non-public address, in every form, and lets public ones pass', () => {
    const client = new OutboundClient([]);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      '2002:7f00:1::',
      '64:ff9b::7f00:1',
    ]) {
      expect(client.addressAllowed(address), address).toBe(false);
    }
    for (const address of ['93.184.215.14', '2606:2800:220:1::1', '::ffff:93.184.215.14']) {
      expect(client.addressAllowed(address), address).toBe(true);
    }
  });

  it('lets OUTBOUND_ALLOW open a host, an address or a range, and refuses a malformed entry at start', () => {
    expect(new OutboundClient(['127.0.0.0/8']).addressAllowed('127.0.0.9')).toBe(true);
    expect(new OutboundClient(['127.0.0.0/8']).addressAllowed('::ffff:127.0.0.9')).toBe(true);
    expect(new OutboundClient(['10.0.0.5']).addressAllowed('10.0.0.6')).toBe(false);
    expect(new OutboundClient(['fd00::/8']).addressAllowed('fd12::1')).toBe(true);
    expect(() => loadConfig({ OUTBOUND_ALLOW: '10.0.0.0/33' }, APP_ROOT)).toThrow(ConfigError);
    expect(loadConfig({ OUTBOUND_ALLOW: 'model.internal, 10.0.0.0/8' }, APP_ROOT).outboundAllow).toEqual(['model.internal', '10.0.0.0/8']);
  });

  it('refuses a name whose answers include a private address, and sends nothing', async () => {
    const double = await standIn(completion('hello'));
    closers.push(double.close);
    const client = new OutboundClient([], async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    await expect(client.request(`http://mixed.example:${double.port}/`, { timeoutMs: 2000 })).rejects.toMatchObject({
      reason: 'blockedAddress',
    });
    await expect(new OutboundClient([]).request(`${double.url}/`, { timeoutMs: 2000 })).rejects.toMatchObject({ reason: 'blockedAddress' });
    expect(double.seen).toHaveLength(0);
  });

  it('connects to the address it checked, not to a second answer of the resolver', async () => {
    const double = await standIn(completion('pinned'));
    closers.push(double.close);
    let lookups = 0;
    // The name exists only in this resolver: reaching the stand-in proves the checked address is the one dialled.
    const client = new OutboundClient(['model.internal'], async () => {
      lookups += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    });
    const answer = await client.request(`http://model.internal:${double.port}/v1/chat/completions`, {
      method: 'POST',
      body: '{}',
      timeoutMs: 2000,
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).choices[0].message.content).toBe('pinned');
    expect(lookups).toBe(1);
    expect(double.seen[0]?.path).toBe('/v1/chat/completions');
  });

  it('keeps a connection to the address it checked, and checks the rule again at every request', async () => {
    const sockets: number[] = [];
    const double = await standIn((req, res) => {
      sockets.push(req.socket.remotePort ?? 0);
      res.end(req.url === '/big' ? 'x'.repeat(1024 * 1024) : 'ok');
    });
    closers.push(double.close);
    let address = '127.0.0.1';
    const client = new OutboundClient(['127.0.0.1'], async () => [{ address, family: 4 }]);
    closers.push(async () => client.close());
    const url = `http://hooks.internal:${double.port}`;
    for (let i = 0; i < 5; i += 1)
      expect((await client.request(`${url}/`, { method: 'POST', body: '{}', timeoutMs: 2000 })).status).toBe(200);
    expect(new Set(sockets).size).toBe(1);
    // An answer nobody reads is drained to keep the connection, or the connection is closed when it is large.
    expect((await client.request(`${url}/big`, { timeoutMs: 2000, readBody: false })).status).toBe(200);
    await client.request(`${url}/`, { timeoutMs: 2000 });
    expect(new Set(sockets).size).toBe(2);
    // The name now answers a private address: refused, though a connection to the old one is still open.
    address = '10.1.2.3';
    await expect(client.request(`${url}/`, { timeoutMs: 2000 })).rejects.toMatchObject({ reason: 'blockedAddress' });
    expect(sockets).toHaveLength(7);
  });

  it('bounds the answer’s size and the exchange’s time', async () => {
    const big = await standIn((_req, res) => res.end('x'.repeat(64 * 1024)));
    const silent = await standIn(() => undefined);
    closers.push(big.close, silent.close);
    const client = new OutboundClient(['127.0.0.1']);
    await expect(client.request(`${big.url}/`, { timeoutMs: 2000, maxBytes: 1024 })).rejects.toMatchObject({ reason: 'tooLarge' });
    const started = Date.now();
    const timedOut = client.request(`${silent.url}/`, { timeoutMs: 300 });
    await expect(timedOut).rejects.toBeInstanceOf(OutboundError);
    await expect(timedOut).rejects.toMatchObject({ reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('drains an unread answer only within the time allowed: a receiver that drips it loses the connection', async () => {
    let dripping = 0;
    let closed = false;
    const drip = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => {
        dripping += 1;
        res.write('x');
      }, 50);
      res.on('close', () => {
        clearInterval(timer);
        closed = true;
      });
    });
    closers.push(drip.close);
    const client = new OutboundClient(['127.0.0.1']);
    closers.push(async () => client.close());
    // The status is the caller's at once; the drained body is not allowed longer than the request's time.
    expect((await client.request(`${drip.url}/`, { method: 'POST', body: '{}', timeoutMs: 400, readBody: false })).status).toBe(200);
    await expect.poll(() => closed, { timeout: 3000 }).toBe(true);
    expect(dripping).toBeLessThan(40);
  });

  it('never sends a request whose time ran out while it waited for a connection', async () => {
    // Every connection to the receiver is held by a request it never answers; one more waits behind them.
    const silent = await standIn(() => undefined);
    closers.push(silent.close);
    const client = new OutboundClient(['127.0.0.1']);
    closers.push(async () => client.close());
    const held = Array.from({ length: 16 }, (_, i) =>
      client.request(`${silent.url}/held/${i}`, { method: 'POST', body: '{}', timeoutMs: 1500 }).then(
        () => 'answered',
        (error: OutboundError) => error.reason,
      ),
    );
    await expect.poll(() => silent.seen.length).toBe(16);
    const started = Date.now();
    await expect(client.request(`${silent.url}/late`, { method: 'POST', body: '{}', timeoutMs: 200 })).rejects.toMatchObject({
      reason: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(1000);
    // The held requests time out and free their connections; the late one, first in line for them, is
    // still not sent: a request made after it reaches the receiver, and it never does.
    expect(new Set(await Promise.all(held))).toEqual(new Set(['timeout']));
    const probe = client.request(`${silent.url}/probe`, { method: 'POST', body: '{}', timeoutMs: 2000 }).catch(() => undefined);
    await expect.poll(() => silent.seen.map(({ path }) => path)).toContain('/probe');
    expect(silent.seen.map(({ path }) => path)).not.toContain('/late');
    client.close();
    await probe;
  });
});
