import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RobotHighAnswer, RobotTryResult } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

/**
 * A stand-in for an OpenAI-compatible `/v1/embeddings` endpoint with deterministic vectors: each text is
 * a bag of concepts, where a concept is any of a few words or characters in either language (狗 and dog and
 * pet are one), and every other character or word falls into one of 32 hashed dimensions. Enough for a
 * paraphrase that shares no word with a phrasing to land near it, as a real multilingual model would.
 */
const CONCEPTS = [
  ['pet', 'dog', 'cat', '宠物', '狗', '猫'],
  ['park', 'parking', 'car', '停车', '车位', '开车'],
  ['breakfast', 'morning meal', '早餐', '早饭', '早上吃'],
];
const HASHED = 32;

function embed(text: string): number[] {
  const vector = new Array<number>(CONCEPTS.length + HASHED).fill(0);
  let rest = text.toLowerCase();
  CONCEPTS.forEach((words, at) => {
    for (const word of [...words].sort((a, b) => b.length - a.length)) {
      if (!rest.includes(word)) continue;
      vector[at] = (vector[at] as number) + 3;
      rest = rest.split(word).join(' ');
    }
  });
  for (const token of rest.match(/[a-z]+|\p{Script=Han}/gu) ?? []) {
    let hash = 0;
    for (const char of token) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) % HASHED;
    vector[CONCEPTS.length + hash] = (vector[CONCEPTS.length + hash] as number) + 0.3;
  }
  return vector;
}

let double: Server;
let doubleUrl: string;
/** What the stand-in was sent, request by request. */
const seen: { authorization: string | undefined; model: unknown; input: string[] }[] = [];
let failing = false;

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

let server: TestServer;
let admin: string;

const PAIRS = [
  { questions: ['可以带宠物吗', 'Are pets allowed?'], answer: '可以，小型宠物免费。/ Small pets stay free.' },
  { questions: ['有停车场吗', 'Is there parking?'], answer: '地下车库，住客免费。/ Free garage for guests.' },
  { questions: ['含早餐吗', 'Is breakfast included?'], answer: '含双早。/ Breakfast for two.' },
];

beforeAll(async () => {
  double = createServer(async (req, res) => {
    const parsed = JSON.parse(await body(req)) as { model: unknown; input: string[] };
    seen.push({ authorization: req.headers.authorization, model: parsed.model, input: parsed.input });
    if (req.url !== '/v1/embeddings' || failing) {
      res.writeHead(failing ? 500 : 404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ object: 'list', data: parsed.input.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })) }),
    );
  });
  await new Promise<void>((resolve) => double.listen(0, '127.0.0.1', resolve));
  doubleUrl = `http://127.0.0.1:${(double.address() as AddressInfo).port}/v1`;
  // The stand-in listens on loopback, which the outbound rule refuses unless listed.
  server = await startTestServer({ OUTBOUND_ALLOW: '127.0.0.1' });
  admin = await server.login();
  for (const pair of PAIRS) expect((await server.post('/api/robot/ask/doEdit', pair, { token: admin })).status).toBe(200);
});
afterAll(async () => {
  await server.close();
  await new Promise((resolve) => double.close(resolve));
});

const ask = async (text: string) => (await server.post<RobotTryResult>('/api/robot/try', { text }, { token: admin })).body.data;
const high = () => server.get<RobotHighAnswer>('/api/robot/high', { token: admin });
const configure = async (embeddings: Record<string, unknown>) =>
  server.post<RobotHighAnswer>('/api/robot/high', { ...(await high()).body.data, embeddings }, { token: admin });

describe('an embeddings endpoint in the smart robot settings', () => {
  it('answers Chinese and English paraphrases by meaning through it, with its key', async () => {
    // Lexically, none of these reaches its pair.
    expect(await ask('狗狗能一起住吗')).toBeNull();
    const saved = await configure({ enabled: true, baseUrl: doubleUrl, model: 'stand-in', apiKey: 'sk-embed', timeoutMs: 2000 });
    expect(saved.status).toBe(200);
    expect((await ask('狗狗能一起住吗'))?.answer).toBe(PAIRS[0]?.answer);
    expect((await ask('开车过去车停哪'))?.answer).toBe(PAIRS[1]?.answer);
    expect((await ask('早饭几点开始'))?.answer).toBe(PAIRS[2]?.answer);
    expect((await ask('may I bring my cat'))?.answer).toBe(PAIRS[0]?.answer);
    expect(seen.length).toBeGreaterThan(0);
    for (const request of seen) expect(request).toMatchObject({ authorization: 'Bearer sk-embed', model: 'stand-in' });
    // Every phrasing and answer embedded once, then one text a question.
    expect(seen[0]?.input.length).toBe(PAIRS.length * 3);
    expect(seen.slice(1).every((request) => request.input.length === 1)).toBe(true);
  });

  it('keeps the key sealed at rest and never answers it', async () => {
    const answer = (await high()).body.data;
    expect(answer.embeddings).toMatchObject({ enabled: true, baseUrl: doubleUrl, apiKey: '', hasApiKey: true });
    expect(JSON.stringify(answer)).not.toContain('sk-embed');
    const stored = await server.storage.db.selectFrom('settings').select('value').where('page', '=', 'robotHigh').executeTakeFirstOrThrow();
    expect(JSON.parse(stored.value)).toMatchObject({ embeddings: { apiKey: expect.stringMatching(/^sealed:v1:/) } });
    expect(stored.value).not.toContain('sk-embed');
  });

  it('refuses an address the outbound rule refuses, naming the field', async () => {
    const refused = await configure({ enabled: true, baseUrl: 'http://10.0.0.7/v1', model: 'x', apiKey: '', timeoutMs: 2000 });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('embeddings.baseUrl');
  });

  it('answers lexically while the endpoint fails', async () => {
    failing = true;
    try {
      expect((await ask('可以带宠物吗'))?.answer).toBe(PAIRS[0]?.answer);
      expect(await ask('狗狗能一起住吗')).toBeNull();
    } finally {
      failing = false;
    }
    expect((await ask('狗狗能一起住吗'))?.answer).toBe(PAIRS[0]?.answer);
  });
});
