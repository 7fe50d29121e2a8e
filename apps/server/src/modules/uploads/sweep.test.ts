import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { UploadRepository } from './repository.js';
import { MESSAGE_WINDOW, UploadSweeper, uploadNameIn } from './sweep.js';

const NAME = `${'a'.repeat(24)}.png`;

/** The sweeper's view of messages, counting the rows each pass reads. */
function fakeRepository(messages: { id: number; type: string; msg: string; created_at: string }[]) {
  const marked = new Set<string>();
  const reads: [number, number][] = [];
  const repo = {
    marksUpTo: async () => 0,
    recordMarksUpTo: async () => undefined,
    lastMessageId: async () => Math.max(0, ...messages.map((message) => message.id)),
    messagesBetween: async (after: number, upTo: number, recentFrom: string) => {
      reads.push([after, upTo]);
      return messages.filter(
        (message) =>
          message.id > after &&
          message.id <= upTo &&
          (message.type === 'image' || message.type === 'file' || message.created_at >= recentFrom),
      );
    },
    markReferenced: async (names: string[]) => {
      for (const name of names) marked.add(name);
    },
    deleteUnreferenced: async () => [],
    known: async () => new Set<string>(),
  };
  return { repo: repo as unknown as UploadRepository, marked, reads };
}

const dirs: string[] = [];
function sweeperOf(repo: UploadRepository) {
  const dir = mkdtempSync(join(tmpdir(), 'parley-sweep-'));
  dirs.push(dir);
  return new UploadSweeper(repo, dir, { intervalMs: 3600_000, graceMs: 3600_000 }, pino({ level: 'silent' }));
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('uploadNameIn', () => {
  it('finds the upload of a relative or absolute file URL, and nothing else', () => {
    expect(uploadNameIn(`/api/files/${NAME}/dot.png`)).toBe(NAME);
    expect(uploadNameIn(`https://chat.example/api/files/${NAME}`)).toBe(NAME);
    expect(uploadNameIn(`/api/files/${NAME}!/dot.png`)).toBeUndefined();
    expect(uploadNameIn('/api/files/../parley.db')).toBeUndefined();
  });
});

describe('UploadSweeper', () => {
  const old = new Date(Date.now() - 24 * 3600_000).toISOString();

  it('reads each settled message once, in windows, and marks what image and file messages name', async () => {
    const messages = Array.from({ length: 2500 }, (_, index) => ({ id: index + 1, type: 'text', msg: 'hello', created_at: old }));
    messages[1200] = { id: 1201, type: 'image', msg: `/api/files/${NAME}/dot.png`, created_at: old };
    messages[1300] = { id: 1301, type: 'text', msg: `/api/files/${'b'.repeat(24)}.png/x.png`, created_at: old };
    const { repo, marked, reads } = fakeRepository(messages);
    const sweeper = sweeperOf(repo);
    await sweeper.run();
    expect(marked).toEqual(new Set([NAME]));
    expect(reads).toEqual([
      [0, MESSAGE_WINDOW],
      [MESSAGE_WINDOW, 2 * MESSAGE_WINDOW],
      [2 * MESSAGE_WINDOW, 2500],
    ]);
    reads.length = 0;
    await sweeper.run();
    expect(reads).toEqual([]);
  });

  it('reads again from the last settled message, so one committed late is not missed', async () => {
    const recent = new Date().toISOString();
    const messages = [
      { id: 1, type: 'image', msg: '/api/files/x', created_at: old },
      { id: 3, type: 'file', msg: `/api/files/${NAME}/a.pdf`, created_at: recent },
    ];
    const { repo, marked, reads } = fakeRepository(messages);
    const sweeper = sweeperOf(repo);
    await sweeper.run();
    expect(marked).toEqual(new Set([NAME]));
    // Message 2 becomes visible only now.
    messages.push({ id: 2, type: 'image', msg: `/api/files/${'c'.repeat(24)}.png/c.png`, created_at: recent });
    reads.length = 0;
    await sweeper.run();
    expect(reads).toEqual([[1, 3]]);
    expect(marked.has(`${'c'.repeat(24)}.png`)).toBe(true);
  });
});
