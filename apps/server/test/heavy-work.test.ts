import type { RobotImportResult, RobotTryResult } from '@parley/protocol';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type FreshStorage, freshStorage } from './harness.js';
import { buildOnce, type ServerProcess, spawnServer } from './processes.js';
import { visitorRow } from './rows.js';

/**
 * Heavy work kept off the event loop (issue 23, finding 3), over real HTTP to a server process of its
 * own: in the test's process the client would share the server's event loop, and a stalled server would
 * stall its own client with it, which hides the stall.
 */

const DAY_MS = 86_400_000;
/** Conversations within the last 300 days, each with a long comment: an export of some 20 MB. */
const CONVERSATIONS = 12_000;
const COMMENT = '很好'.repeat(240);
/** The database the spawned server runs on, written first. */
let fresh: FreshStorage | undefined;
const seeded = new Set<number>();
let oldConversation = 0;
let server: ServerProcess;
let admin = '';
/** A second administrator: the limit per agent counts each apart. */
let other = '';
/** An agent of the built-in Agent role: no robotSettings. */
let plain = '';

async function api<T>(method: 'GET' | 'POST', path: string, token?: string, body?: unknown, lang = 'en') {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      'accept-language': lang,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { code: number; msg: string; data: T } };
}

async function login(username: string, password: string): Promise<string> {
  const answer = await api<{ token: string }>('POST', '/api/login', undefined, { username, password });
  if (answer.status !== 200) throw new Error(`login as ${username}: ${answer.body.msg}`);
  return answer.body.data.token;
}

async function createAgent(username: string, role: string): Promise<string> {
  const roles = await api<{ list: { id: number; name: string }[] }>('GET', '/api/role/getList', admin);
  const roleId = roles.body.data.list.find((item) => item.name === role)?.id;
  const password = 'agent-pass-long-1';
  const created = await api('POST', '/api/service/doEdit', admin, { username, nickname: username, password, roleId, disabled: false });
  if (created.status !== 200) throw new Error(`creating ${username}: ${created.body.msg}`);
  return login(username, password);
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function exportHistory(query: string, token = admin, lang = 'en') {
  return fetch(`${server.url}/api/history/export?${query}`, { headers: { authorization: `Bearer ${token}`, 'accept-language': lang } });
}

/** An export's rows (header left out), as a spreadsheet would read them. */
function rowsOf(csv: string): string[][] {
  return (parse(csv.replace(/^\uFEFF/, ''), { relax_column_count: true }) as string[][]).slice(1);
}

/** Polls `condition` until it holds, or fails after `ms`. */
async function until(condition: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Asks `/healthz` one request after another until `running` settles: how many it answered (200) while
 * `running` was still under way.
 */
async function healthAnswersDuring(running: Promise<unknown>): Promise<number> {
  let settled = false;
  const done = running.finally(() => {
    settled = true;
  });
  let answered = 0;
  while (!settled) {
    const response = await fetch(`${server.url}/healthz`);
    await response.text();
    if (response.status === 200 && !settled) answered += 1;
  }
  await done;
  return answered;
}

beforeAll(async () => {
  await buildOnce();
  // The server's tables and its administrator, then the rows of a busy site written straight in.
  fresh = await freshStorage();
  const { storage } = fresh;
  const now = Date.now();
  for (let start = 0; start < CONVERSATIONS / 3; start += 500) {
    const visitors = await storage.db
      .insertInto('visitors')
      .values(
        Array.from({ length: 500 }, (_, offset) => {
          const key = `heavy${String(start + offset).padStart(8, '0')}`;
          const at = new Date(now - 300 * DAY_MS).toISOString();
          return visitorRow({ token_hash: key, public_id: key, created_at: at, last_seen_at: at, last_seq: 100 });
        }),
      )
      .returning('id')
      .execute();
    const rows = visitors.flatMap(({ id }, offset) =>
      [0, 1, 2].map((n) => {
        const started = now - ((start + offset) * 3 + n + 1) * ((290 * DAY_MS) / CONVERSATIONS);
        return {
          visitor_id: id,
          service_id: null,
          score: null,
          first_seq: n * 10 + 1,
          last_seq: n * 10 + 5,
          comment: `${(start + offset) * 3 + n}:${COMMENT}`,
          started_at: new Date(started).toISOString(),
          ended_at: new Date(started + 600_000).toISOString(),
        };
      }),
    );
    for (const { id } of await storage.db.insertInto('conversations').values(rows).returning('id').execute()) seeded.add(id);
  }
  const [first] = await storage.db.selectFrom('visitors').select('id').limit(1).execute();
  const old = await storage.db
    .insertInto('conversations')
    .values({
      visitor_id: first?.id ?? 0,
      service_id: null,
      score: null,
      first_seq: 100,
      last_seq: 101,
      comment: 'long ago',
      started_at: new Date(now - 400 * DAY_MS).toISOString(),
      ended_at: new Date(now - 400 * DAY_MS + 600_000).toISOString(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  oldConversation = old.id;
  await storage.close();

  server = await spawnServer('apps/server/dist/main.js', fresh.dataDir, fresh.schema, {
    ADMIN_PASSWORD: ADMIN.password,
    EXPORT_MAX_PER_AGENT: '2',
    EXPORT_MAX_PER_PROCESS: '3',
    LOG_LEVEL: 'warn',
  });
  admin = await login(ADMIN.username, ADMIN.password);
  other = await createAgent('second-admin', 'Admin');
  plain = await createAgent('plain-agent', 'Agent');
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await fresh?.remove();
});

describe('GET /api/history/export', () => {
  // Open to every agent (history.test.ts shows what one without seeHistorical reads): no 403 case.
  it('answers 401 without a token', async () => {
    expect((await fetch(`${server.url}/api/history/export`)).status).toBe(401);
  });

  it('refuses a range over 366 days naming from, in zh and en, and takes one of 366 days', async () => {
    const to = day(Date.now());
    const wide = await exportHistory(`from=${day(Date.now() - 366 * DAY_MS)}&to=${to}`);
    expect(wide.status).toBe(400);
    expect(await wide.json()).toEqual({
      code: 400,
      msg: 'Invalid field from: one export covers at most 366 days; narrow the dates',
      data: null,
    });
    const zh = await exportHistory(`from=2020-01-01&to=${to}`, admin, 'zh');
    expect(zh.status).toBe(400);
    expect(((await zh.json()) as { msg: string }).msg).toBe('字段 from 无效：一次导出最多 366 天，请缩小日期范围');
    const open = await exportHistory(`from=${day(Date.now() - 400 * DAY_MS)}`);
    expect(open.status).toBe(400);

    const year = await exportHistory(`from=${day(Date.now() - 365 * DAY_MS)}&to=${to}`);
    expect(year.status).toBe(200);
    await year.body?.cancel();
  });

  it('without from covers the 366 days up to to (or today), and reaches back further when asked', async () => {
    const recent = await exportHistory('');
    expect(recent.status).toBe(200);
    const ids = rowsOf(await recent.text()).map((row) => Number(row[0]));
    expect(ids).toHaveLength(CONVERSATIONS);
    expect(ids).not.toContain(oldConversation);

    const back = await exportHistory(`from=${day(Date.now() - 401 * DAY_MS)}&to=${day(Date.now() - 399 * DAY_MS)}`);
    expect(rowsOf(await back.text()).map((row) => Number(row[0]))).toEqual([oldConversation]);
    const endingThen = await exportHistory(`to=${day(Date.now() - 399 * DAY_MS)}`);
    expect(rowsOf(await endingThen.text()).map((row) => Number(row[0]))).toEqual([oldConversation]);
  }, 120_000);

  it('streams a large export whole and right while /healthz keeps answering', async () => {
    const response = await exportHistory(`from=${day(Date.now() - 365 * DAY_MS)}&to=${day(Date.now())}`);
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    const decoder = new TextDecoder();
    const reading = (async () => {
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return text + decoder.decode();
        text += decoder.decode(value, { stream: true });
      }
    })();
    // Answered one after another while the export is still coming: the server is not held by it.
    expect(await healthAnswersDuring(reading)).toBeGreaterThanOrEqual(3);
    const rows = rowsOf(await reading);
    expect(rows).toHaveLength(CONVERSATIONS);
    const ids = rows.map((row) => Number(row[0]));
    expect(new Set(ids)).toEqual(seeded);
    // Newest first.
    const started = rows.map((row) => row[5] ?? '');
    expect(started).toEqual([...started].sort().reverse());
    // Each row whole: every conversation's comment, once.
    const comments = rows.map((row) => row[11] ?? '');
    expect(comments.every((comment) => comment.endsWith(`:${COMMENT}`))).toBe(true);
    expect(new Set(comments.map((comment) => comment.split(':')[0])).size).toBe(CONVERSATIONS);
  }, 120_000);

  it('answers 429 beyond 2 exports per agent and 3 per process, until one of them ends', async () => {
    const range = `from=${day(Date.now() - 365 * DAY_MS)}&to=${day(Date.now())}`;
    /** An export started and then read no further: it stays open, held by the unread bytes. */
    const hold = async (token: string) => {
      const response = await exportHistory(range, token);
      expect(response.status).toBe(200);
      const reader = response.body?.getReader();
      if (!reader) throw new Error('no body');
      await reader.read();
      return reader;
    };
    const first = await hold(admin);
    const second = await hold(admin);
    const third = await exportHistory(range, admin);
    expect(third.status).toBe(429);
    expect(await third.json()).toEqual({
      code: 429,
      msg: 'Too many exports at once (at most 2 per person and 3 on the server); try again once one has finished',
      data: null,
    });
    const zh = await exportHistory(range, admin, 'zh');
    expect(((await zh.json()) as { msg: string }).msg).toBe(
      '同时进行的导出过多（每人最多 2 个，服务器最多 3 个），请等当前的导出完成后再试',
    );
    // The knowledge base's and the audit log's exports count with them.
    for (const path of ['/api/robot/ask/export', '/api/audit/getList?format=csv']) {
      expect((await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${admin}` } })).status, path).toBe(429);
    }

    const others = await hold(other);
    const beyondProcess = await exportHistory(range, other);
    expect(beyondProcess.status).toBe(429);
    await beyondProcess.body?.cancel();

    // One read to its end: its slot is free again, for its agent.
    for (;;) if ((await first.read()).done) break;
    await until(async () => {
      const again = await exportHistory(range, admin);
      await again.body?.cancel();
      return again.status === 200;
    });
    // Ones the client gave up on free theirs as well.
    await second.cancel();
    await others.cancel();
    await until(async () => {
      const [a, b] = await Promise.all([exportHistory(range, admin), exportHistory(range, other)]);
      await Promise.all([a.body?.cancel(), b.body?.cancel()]);
      return a.status === 200 && b.status === 200;
    });
  }, 120_000);
});

/** A multipart upload of `csv` as the import reads it. */
async function importForm(csv: string): Promise<{ bytes: Uint8Array; type: string }> {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'pairs.csv');
  const encoded = new Response(form);
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), type: encoded.headers.get('content-type') ?? '' };
}

function importRequest(body: Blob | ReadableStream<Uint8Array>, type: string, token = admin) {
  return fetch(`${server.url}/api/robot/ask/import`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${token}`, 'content-type': type, 'accept-language': 'en' },
    duplex: 'half',
  } as RequestInit);
}

/** Some 20,000 pairs of made-up words (a wide vocabulary, as a real base has), just under the 2 MiB import limit. */
function bigKnowledgeBase(): { csv: string; count: number } {
  let state = 7;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const word = () =>
    Array.from({ length: 5 + Math.floor(random() * 5) }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)]).join('');
  const lines = ['question,answer,category,enabled'];
  let size = lines[0]?.length ?? 0;
  for (let n = 0; ; n += 1) {
    const line = `pair${n} ${word()} ${word()} ${word()},answer ${n} ${word()} ${word()},bulk,true`;
    if (size + line.length + 1 > 2 * 1024 * 1024 - 1024) return { csv: `${lines.join('\n')}\n`, count: n };
    lines.push(line);
    size += line.length + 1;
  }
}

describe('POST /api/robot/ask/import and POST /api/robot/try', () => {
  it('answer 401 without a token and 403 without setPermissions:robotSettings', async () => {
    const small = await importForm('question,answer\na,b\n');
    expect((await importRequest(new Blob([small.bytes]), small.type, '')).status).toBe(401);
    expect((await importRequest(new Blob([small.bytes]), small.type, plain)).status).toBe(403);
    expect((await api('POST', '/api/robot/try', undefined, { text: 'x' })).status).toBe(401);
    expect((await api('POST', '/api/robot/try', plain, { text: 'x' })).status).toBe(403);
  });

  it('takes one import at a time (429 for another meanwhile), stores a 2 MiB one whole, and /healthz answers while it runs', async () => {
    const { csv, count } = bigKnowledgeBase();
    const big = await importForm(csv);
    // The upload's last bytes are held back: the import has begun and cannot end until they come.
    const heldImport = () => {
      let release: () => void = () => undefined;
      const tail = new Promise<void>((resolve) => {
        release = resolve;
      });
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(big.bytes.subarray(0, big.bytes.length - 100));
          await tail;
          controller.enqueue(big.bytes.subarray(big.bytes.length - 100));
          controller.close();
        },
      });
      const held = { running: importRequest(body, big.type), answered: false, release };
      held.running.then(
        () => {
          held.answered = true;
        },
        () => {
          held.answered = true;
        },
      );
      return held;
    };
    let held = heldImport();
    const probe = await importForm('question,answer\nprobe question,probe answer\n');
    await until(async () => {
      // A probe that reached the server first took the one slot, and the held import was refused: send it again.
      if (held.answered) {
        held.release();
        held = heldImport();
      }
      const answer = await importRequest(new Blob([probe.bytes]), probe.type);
      const json = (await answer.json()) as { msg: string };
      if (answer.status === 429) expect(json.msg).toBe('Another knowledge-base import is running; try again once it has finished');
      return answer.status === 429;
    });

    const { running, release } = held;
    release();
    const finished = running.then(async (response) => ({
      status: response.status,
      body: (await response.json()) as { data: RobotImportResult },
    }));
    expect(await healthAnswersDuring(finished)).toBeGreaterThanOrEqual(3);
    const result = await finished;
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual({ created: count, updated: 0, errors: [] });
    const listed = await api<{ total: number }>('GET', '/api/robot/ask/getList?pageNo=1&pageSize=1&category=bulk', admin);
    expect(listed.body.data.total).toBe(count);

    // Free again once it is done.
    const after = await importRequest(new Blob([probe.bytes]), probe.type);
    expect(after.status).toBe(200);
  }, 120_000);

  it('builds the index of a large knowledge base without holding /healthz, and answers from it', async () => {
    // The import above changed too many pairs to follow one by one: this question builds the index anew.
    const asked = api<RobotTryResult>('POST', '/api/robot/try', admin, { text: 'pair12345' });
    expect(await healthAnswersDuring(asked)).toBeGreaterThanOrEqual(3);
    const answer = await asked;
    expect(answer.status).toBe(200);
    expect(answer.body.data?.answer).toMatch(/^answer 12345 /);
  }, 120_000);
});
