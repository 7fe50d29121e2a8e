import { type ExpressionBuilder, type Insertable, sql } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database, UploadsTable } from '../../db/schema.js';

/** What the quotas count: a visitor's or an address's uploads since a time, or every stored upload. */
export type UsageScope =
  | { kind: 'visitor'; visitorId: number; since: string }
  | { kind: 'address'; ip: string; since: string }
  | { kind: 'total' };

/** Up to this many rows or names per statement of the sweep. */
const BATCH = 500;

/** The message types whose text is an upload's URL; a text message that quotes a URL does not keep the file. */
const REFERENCING_TYPES = ['image', 'file'];

/** `%/api/files/<the upload's name>%`: a LIKE pattern for a text naming the upload of the outer row. */
const namesUpload = sql<string>`'%/api/files/' || ${sql.ref('uploads.name')} || '%'`;

/**
 * Whether something other than a message shows the upload of the outer `uploads` row: a saved settings
 * page (the chat-window pages and the smart robot's settings, each a JSON row of `settings`: logos,
 * avatars, the ad, launcher, QR and invitation images), an agent's avatar, or a robot pair's image.
 *
 * These are checked where an upload is deleted, in the same statement, rather than marked when saved:
 * a mark would have to be taken back when a value changes, which needs this same check anyway (the file
 * may still be shown elsewhere), while a check at delete time reads whatever any process stored last and
 * lets the file go as soon as nothing shows it. The tables are small (a dozen settings rows, the agents,
 * the pairs' short image addresses) and only candidates for deletion are checked. A pattern that matches
 * loosely (`_` is a wildcard in LIKE) can only keep a file, never lose one.
 */
export function shownOutsideMessages(eb: ExpressionBuilder<Database, 'uploads'>) {
  return eb.or([
    eb.exists(eb.selectFrom('settings').select(sql.lit(1).as('one')).where('settings.value', 'like', namesUpload)),
    eb.exists(eb.selectFrom('agents').select(sql.lit(1).as('one')).where('agents.avatar', 'like', namesUpload)),
    eb.exists(eb.selectFrom('robot_asks').select(sql.lit(1).as('one')).where('robot_asks.image', 'like', namesUpload)),
  ]);
}

export class UploadRepository {
  constructor(private readonly db: Db) {}

  async insert(row: Insertable<UploadsTable>): Promise<void> {
    await this.db.insertInto('uploads').values(row).execute();
  }

  async usage(scope: UsageScope): Promise<number> {
    let query = this.db.selectFrom('uploads').select((eb) => eb.fn.sum<number | string | null>('size').as('bytes'));
    if (scope.kind === 'visitor') query = query.where('visitor_id', '=', scope.visitorId).where('created_at', '>=', scope.since);
    if (scope.kind === 'address') query = query.where('ip', '=', scope.ip).where('created_at', '>=', scope.since);
    const row = await query.executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  /** The newest message's id, 0 with none: where a pass over messages stops. */
  async lastMessageId(): Promise<number> {
    const row = await this.db
      .selectFrom('messages')
      .select((eb) => eb.fn.max('id').as('last'))
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  }

  /** How far any process has read messages and marked the uploads they name (see UploadSweeper). */
  async marksUpTo(): Promise<number> {
    const row = await this.db.selectFrom('upload_marks').select('messages_up_to').where('id', '=', 1).executeTakeFirst();
    return Number(row?.messages_up_to ?? 0);
  }

  /** Records that messages up to `id` are read and their uploads marked; never moves the point back. */
  async recordMarksUpTo(id: number): Promise<void> {
    await this.db.updateTable('upload_marks').set({ messages_up_to: id }).where('id', '=', 1).where('messages_up_to', '<', id).execute();
  }

  /**
   * Messages with `after < id <= upTo` that may reference an upload (images and files), and any other
   * message created at or after `recentFrom`, ordered by id. The range is walked on the primary key, so a
   * call reads at most `upTo - after` rows however large the table is.
   */
  async messagesBetween(
    after: number,
    upTo: number,
    recentFrom: string,
  ): Promise<{ id: number; type: string; msg: string; created_at: string }[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select(['id', 'type', 'created_at'])
      // Only the messages that can reference an upload bring their text.
      .select((eb) => eb.case().when('type', 'in', REFERENCING_TYPES).then(eb.ref('msg')).else('').end().as('msg'))
      .where('id', '>', after)
      .where('id', '<=', upTo)
      .where((eb) => eb.or([eb('type', 'in', REFERENCING_TYPES), eb('created_at', '>=', recentFrom)]))
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ ...row, id: Number(row.id), msg: row.msg ?? '' }));
  }

  /** Marks these uploads as referenced by a message, so the sweep keeps them without checking again. */
  async markReferenced(names: string[]): Promise<void> {
    for (let start = 0; start < names.length; start += BATCH) {
      await this.db
        .updateTable('uploads')
        .set({ referenced: 1 })
        .where('referenced', '=', 0)
        .where('name', 'in', names.slice(start, start + BATCH))
        .execute();
    }
  }

  /**
   * Deletes up to one batch of uploads created before `before` that are not marked referenced and that no
   * setting, avatar or robot pair shows, and answers their names. Marking covers messages up to
   * `checkedUpTo`; the few messages after it (the newest, and any stored since the marking) are checked in
   * the same statement as the delete, on the primary-key range, so a message stored meanwhile still keeps
   * its file.
   */
  async deleteUnreferenced(before: string, checkedUpTo: number): Promise<{ name: string; size: number }[]> {
    const candidates = this.db
      .selectFrom('uploads')
      .select('id')
      .where('referenced', '=', 0)
      .where('created_at', '<', before)
      .where((eb) => eb.not(shownOutsideMessages(eb)))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('messages')
              .select(sql.lit(1).as('one'))
              .where('messages.id', '>', checkedUpTo)
              .where('messages.type', 'in', REFERENCING_TYPES)
              .where('messages.msg', 'like', sql<string>`'%/api/files/' || ${sql.ref('uploads.name')} || '%'`),
          ),
        ),
      )
      .limit(BATCH);
    return this.db.deleteFrom('uploads').where('id', 'in', candidates).returning(['name', 'size']).execute();
  }

  /** Of these file names, the ones that have a row. */
  async known(names: string[]): Promise<Set<string>> {
    const known = new Set<string>();
    for (let start = 0; start < names.length; start += BATCH) {
      const rows = await this.db
        .selectFrom('uploads')
        .select('name')
        .where('name', 'in', names.slice(start, start + BATCH))
        .execute();
      for (const row of rows) known.add(row.name);
    }
    return known;
  }
}

export const SWEEP_BATCH = BATCH;
