import type { ExpressionBuilder } from 'kysely';
import type { Db, DbOrTx } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { shownOutsideMessages } from '../uploads/repository.js';
import { uploadNameIn } from '../uploads/sweep.js';

export interface Purged {
  messages: number;
  conversations: number;
  visits: number;
  letters: number;
  /** Upload files whose rows went with the last message showing them: the caller removes them from disk. */
  files: string[];
}

/** The message types whose text is an upload's URL. */
const UPLOAD_TYPES = ['image', 'file'];

/** Upload names looked for per statement, one LIKE each. */
const SHOWN_BATCH = 100;

/** Messages older than `cutoff`, except those of a conversation still open: its agent still reads them. */
function purgeable(cutoff: string) {
  return (eb: ExpressionBuilder<Database, 'messages'>) =>
    eb.and([
      eb('messages.created_at', '<', cutoff),
      eb.not(
        eb.exists(
          eb
            .selectFrom('conversations')
            .select('conversations.id')
            .whereRef('conversations.visitor_id', '=', 'messages.visitor_id')
            .where('conversations.ended_at', 'is', null)
            .whereRef('conversations.first_seq', '<=', 'messages.seq'),
        ),
      ),
    ]);
}

/**
 * Of these upload names, the ones an image or file message still shows. A name is read back from each
 * matching message, so a LIKE that matched loosely (`_` is a wildcard there) keeps nothing it should not.
 */
async function stillShown(db: DbOrTx, names: readonly string[]): Promise<Set<string>> {
  const shown = new Set<string>();
  for (let start = 0; start < names.length; start += SHOWN_BATCH) {
    const batch = names.slice(start, start + SHOWN_BATCH);
    const rows = await db
      .selectFrom('messages')
      .select('msg')
      .where('type', 'in', UPLOAD_TYPES)
      .where((eb) => eb.or(batch.map((name) => eb('msg', 'like', `%/api/files/${name}%`))))
      .execute();
    for (const row of rows) {
      const name = uploadNameIn(row.msg);
      if (name) shown.add(name);
    }
  }
  return shown;
}

/** SQL of the retention purge: what is older than a cut-off goes, what is still going on stays. */
export class RetentionRepository {
  constructor(private readonly db: Db) {}

  /**
   * Deletes, before `cutoff` (ISO time): ended conversations, their messages, visits and letters, and the
   * upload rows of files that only purged messages showed (an agent's file sent to several visitors stays
   * while one of its messages does; a file a setting, avatar or robot pair shows stays too).
   */
  purgeBefore(cutoff: string): Promise<Purged> {
    return this.db.transaction().execute(async (tx) => {
      const uploadMessages = await tx
        .selectFrom('messages')
        .select('msg')
        .where('type', 'in', UPLOAD_TYPES)
        .where(purgeable(cutoff))
        .execute();
      const messages = await tx.deleteFrom('messages').where(purgeable(cutoff)).executeTakeFirst();
      const named = new Set(uploadMessages.map((row) => uploadNameIn(row.msg)).filter((name) => name !== undefined));
      const shown = await stillShown(tx, [...named]);
      const unshown = [...named].filter((name) => !shown.has(name));
      const files: string[] = [];
      for (let start = 0; start < unshown.length; start += SHOWN_BATCH) {
        const batch = unshown.slice(start, start + SHOWN_BATCH);
        const removed = await tx
          .deleteFrom('uploads')
          .where('name', 'in', batch)
          .where((eb) => eb.not(shownOutsideMessages(eb)))
          .returning('name')
          .execute();
        files.push(...removed.map((row) => row.name));
        // What a setting, avatar or robot pair still shows stays, no longer held by a message: the upload
        // sweep keeps it while one of them shows it and removes it once none does.
        await tx.updateTable('uploads').set({ referenced: 0 }).where('name', 'in', batch).execute();
      }
      const conversations = await tx
        .deleteFrom('conversations')
        .where('ended_at', 'is not', null)
        .where('ended_at', '<', cutoff)
        .executeTakeFirst();
      const visits = await tx.deleteFrom('visits').where('created_at', '<', cutoff).executeTakeFirst();
      const letters = await tx.deleteFrom('letters').where('created_at', '<', cutoff).executeTakeFirst();
      return {
        messages: Number(messages.numDeletedRows),
        conversations: Number(conversations.numDeletedRows),
        visits: Number(visits.numDeletedRows),
        letters: Number(letters.numDeletedRows),
        files,
      };
    });
  }
}
