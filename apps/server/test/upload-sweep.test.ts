import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../src/db/index.js';
import { UploadRepository } from '../src/modules/uploads/repository.js';
import { MESSAGE_WINDOW, UploadSweeper, uploadNameIn } from '../src/modules/uploads/sweep.js';
import { type FreshStorage, freshStorage } from './harness.js';
import { visitorRow } from './rows.js';

// The upload sweep against a real database: the messages are written straight in (with the ids a late
// commit would leave), the real repository reads them, and what is seen is what the sweep leaves of the
// uploads. Each test has a database of its own, since the sweep's progress is kept in it.

const NAME = `${'a'.repeat(24)}.png`;
const TEXT_ONLY = `${'b'.repeat(24)}.png`;
const LATE = `${'c'.repeat(24)}.png`;
const OLD = new Date(Date.now() - 24 * 3600_000).toISOString();

const opened: FreshStorage[] = [];
afterEach(async () => {
  for (const fresh of opened.splice(0)) {
    await fresh.storage.close();
    await fresh.remove();
  }
});

interface Sweep {
  storage: Storage;
  sweeper: UploadSweeper;
  /** The message ranges the sweep read, `[after, upTo]`, in order. */
  reads: [number, number][];
  visitorId: number;
}

async function sweepOnFreshDatabase(): Promise<Sweep> {
  const fresh = await freshStorage();
  opened.push(fresh);
  const { storage } = fresh;
  const visitor = await storage.db
    .insertInto('visitors')
    .values(visitorRow({ token_hash: 'sweep', public_id: 'sweep-visitor', created_at: OLD, last_seen_at: OLD }))
    .returning('id')
    .executeTakeFirstOrThrow();
  const repo = new UploadRepository(storage.db);
  const reads: [number, number][] = [];
  // The real statement, with the ranges it is asked for noted on the way.
  const read = repo.messagesBetween.bind(repo);
  repo.messagesBetween = (after, upTo, recentFrom) => {
    reads.push([after, upTo]);
    return read(after, upTo, recentFrom);
  };
  const uploads = join(fresh.dataDir, 'uploads');
  const sweeper = new UploadSweeper(repo, uploads, { intervalMs: 3600_000, graceMs: 3600_000 }, pino({ level: 'silent' }));
  mkdirSync(uploads, { recursive: true });
  return { storage, sweeper, reads, visitorId: Number(visitor.id) };
}

async function storeMessages(sweep: Sweep, messages: { id: number; type: string; msg: string; created_at: string }[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 500) {
    await sweep.storage.db
      .insertInto('messages')
      .values(
        messages.slice(start, start + 500).map((message) => ({
          ...message,
          visitor_id: sweep.visitorId,
          seq: message.id,
          only_id: `m${message.id}`,
          role: 'user',
          nickname: 'V0001',
          service_id: null,
          withdrawn: 0,
        })),
      )
      .execute();
  }
}

async function storeUploads(sweep: Sweep, names: string[], createdAt: string): Promise<void> {
  await sweep.storage.db
    .insertInto('uploads')
    .values(
      names.map((name) => ({
        name,
        original_name: 'dot.png',
        mime: 'image/png',
        size: 68,
        visitor_id: sweep.visitorId,
        agent_id: null,
        created_at: createdAt,
        ip: null,
      })),
    )
    .execute();
}

/** Each upload left, and whether the sweep found a message that keeps it. */
async function uploadsLeft(sweep: Sweep): Promise<Record<string, boolean>> {
  const rows = await sweep.storage.db.selectFrom('uploads').select(['name', 'referenced']).orderBy('name').execute();
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.referenced) === 1]));
}

describe('uploadNameIn', () => {
  it('finds the upload of a relative or absolute file URL, and nothing else', () => {
    expect(uploadNameIn(`/api/files/${NAME}/dot.png`)).toBe(NAME);
    expect(uploadNameIn(`https://chat.example/api/files/${NAME}`)).toBe(NAME);
    expect(uploadNameIn(`/api/files/${NAME}!/dot.png`)).toBeUndefined();
    expect(uploadNameIn('/api/files/../parley.db')).toBeUndefined();
  });
});

describe('the upload sweep', () => {
  it('reads each settled message once, in windows, keeps what image and file messages name and removes the rest', async () => {
    const sweep = await sweepOnFreshDatabase();
    const messages = Array.from({ length: 2500 }, (_, index) => ({ id: index + 1, type: 'text', msg: 'hello', created_at: OLD }));
    messages[1200] = { id: 1201, type: 'image', msg: `/api/files/${NAME}/dot.png`, created_at: OLD };
    // A text that only quotes an upload's address does not keep it.
    messages[1300] = { id: 1301, type: 'text', msg: `/api/files/${TEXT_ONLY}/x.png`, created_at: OLD };
    await storeMessages(sweep, messages);
    await storeUploads(sweep, [NAME, TEXT_ONLY], OLD);

    await sweep.sweeper.run();
    expect(await uploadsLeft(sweep)).toEqual({ [NAME]: true });
    expect(sweep.reads).toEqual([
      [0, MESSAGE_WINDOW],
      [MESSAGE_WINDOW, 2 * MESSAGE_WINDOW],
      [2 * MESSAGE_WINDOW, 2500],
    ]);

    // Nothing new: the next sweep reads no message again.
    sweep.reads.length = 0;
    await sweep.sweeper.run();
    expect(sweep.reads).toEqual([]);
  });

  it('reads again from the last settled message, so one committed late is not missed', async () => {
    const sweep = await sweepOnFreshDatabase();
    const recent = new Date().toISOString();
    await storeMessages(sweep, [
      { id: 1, type: 'image', msg: '/api/files/x', created_at: OLD },
      { id: 3, type: 'file', msg: `/api/files/${NAME}/a.pdf`, created_at: recent },
    ]);
    // Uploads are made just before their messages: within the grace, none is removed for want of one.
    await storeUploads(sweep, [NAME, LATE], recent);
    await sweep.sweeper.run();
    expect(await uploadsLeft(sweep)).toEqual({ [LATE]: false, [NAME]: true });

    // Message 2, whose transaction began before message 3's, commits only now.
    await storeMessages(sweep, [{ id: 2, type: 'image', msg: `/api/files/${LATE}/c.png`, created_at: recent }]);
    sweep.reads.length = 0;
    await sweep.sweeper.run();
    expect(sweep.reads).toEqual([[1, 3]]);
    expect(await uploadsLeft(sweep)).toEqual({ [LATE]: true, [NAME]: true });
  });
});
