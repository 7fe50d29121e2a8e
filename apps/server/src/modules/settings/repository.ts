import type { Db } from '../../db/index.js';

export interface StoredPage {
  page: string;
  value: string;
}

/** SQL of the chat-window settings pages: one row per page that was ever saved. */
export class SettingsRepository {
  constructor(private readonly db: Db) {}

  all(): Promise<StoredPage[]> {
    return this.db.selectFrom('settings').select(['page', 'value']).execute();
  }

  async one(page: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('settings').select('value').where('page', '=', page).executeTakeFirst();
    return row?.value;
  }

  async save(page: string, value: string, by: string, at: string): Promise<void> {
    await this.db
      .insertInto('settings')
      .values({ page, value, updated_at: at, updated_by: by })
      .onConflict((conflict) => conflict.column('page').doUpdateSet({ value, updated_at: at, updated_by: by }))
      .execute();
  }
}
