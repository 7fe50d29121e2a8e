import type { Db, DbOrTx } from '../../db/index.js';
import { SealError, Sealer } from '../../lib/sealed.js';
import { mapSecrets } from './secrets.js';

export interface StoredPage {
  page: string;
  value: string;
}

/**
 * SQL of the chat-window settings pages (and the smart robot's settings): one row per page that was ever
 * saved. The secrets inside a row are sealed on the way in and opened on the way out, so every reader
 * above this sees clear values and the table never holds one.
 */
export class SettingsRepository {
  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
    /** Told of a secret that cannot be opened (another key, damaged); the page then reads it as unset. */
    private readonly onSealError: (page: string, error: SealError) => void,
  ) {}

  async all(): Promise<StoredPage[]> {
    const rows = await this.db.selectFrom('settings').select(['page', 'value']).execute();
    return rows.map((row) => ({ page: row.page, value: this.opened(row.page, row.value) }));
  }

  async one(page: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('settings').select('value').where('page', '=', page).executeTakeFirst();
    return row === undefined ? undefined : this.opened(page, row.value);
  }

  /** Seals the secrets of rows written before secrets were sealed; run once at start, before anything reads. */
  async sealStored(): Promise<number> {
    const rows = await this.db.selectFrom('settings').select(['page', 'value']).execute();
    let sealed = 0;
    for (const row of rows) {
      const value = this.sealed(row.page, row.value);
      if (value === row.value) continue;
      await this.db.updateTable('settings').set({ value }).where('page', '=', row.page).where('value', '=', row.value).execute();
      sealed += 1;
    }
    return sealed;
  }

  private sealed(page: string, json: string): string {
    return mapSecrets(page, json, (value, purpose) => (Sealer.isSealed(value) ? value : this.sealer.seal(value, purpose)));
  }

  private opened(page: string, json: string): string {
    return mapSecrets(page, json, (value, purpose) => {
      if (!Sealer.isSealed(value)) return value;
      try {
        return this.sealer.open(value, purpose);
      } catch (error) {
        if (!(error instanceof SealError)) throw error;
        this.onSealError(page, error);
        return '';
      }
    });
  }

  /** `db` is the transaction of a change that records itself in the audit log beside the page. */
  async save(page: string, clear: string, by: string, at: string, db: DbOrTx = this.db): Promise<void> {
    const value = this.sealed(page, clear);
    await db
      .insertInto('settings')
      .values({ page, value, updated_at: at, updated_by: by })
      .onConflict((conflict) => conflict.column('page').doUpdateSet({ value, updated_at: at, updated_by: by }))
      .execute();
  }
}
