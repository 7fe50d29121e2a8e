import type { Db } from '../../db/index.js';

/** SQL of leave-messages. */
export class LetterRepository {
  constructor(readonly db: Db) {}

  async insert(row: {
    visitor_id: number | null;
    name: string;
    phone: string;
    email: string;
    content: string;
    ip: string;
    created_at: string;
  }): Promise<number> {
    const inserted = await this.db
      .insertInto('letters')
      .values({ ...row, read: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    return inserted.id;
  }

  async unread(): Promise<{ count: number; latest: string | null }> {
    const row = await this.db
      .selectFrom('letters')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('created_at').as('latest')])
      .where('read', '=', 0)
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), latest: row.latest ?? null };
  }
}
