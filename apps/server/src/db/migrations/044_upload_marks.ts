import { type Kysely, sql } from 'kysely';

/**
 * How far the upload sweep has read messages for the uploads they name (`modules/uploads/sweep.ts`), kept
 * in the database (one row) rather than in each process's memory: a process that starts now goes on from
 * there instead of reading every message again (ten thousand statements at ten million messages, at every
 * start of every process). Starts at 0: the first sweep after the upgrade reads the messages once.
 */
export function uploadMarks() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('upload_marks')
        .addColumn('id', 'integer', (column) => column.primaryKey())
        .addColumn('messages_up_to', 'bigint', (column) => column.notNull())
        .execute();
      await sql`insert into upload_marks (id, messages_up_to) values (1, 0)`.execute(db);
    },
  };
}
