import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { regionAssignRules } from './021_region_assign_rules.js';

describe('migration 021: region rules that assign without an agent', () => {
  it('drops only those rules, so the page with its block and tip rules still reads', async () => {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) });
    await sql`create table settings (page text primary key, value text not null)`.execute(db);
    const agent = '6f1c8a52-8d0c-4f1e-9a3b-2d4e5f607182';
    const rules = [
      { region: '440000', action: 'block', text: 'no' },
      { region: '110000', action: 'assign' },
      { region: '310000', action: 'assign', serviceID: agent },
      { region: '500000', action: 'tip', text: 'hello' },
    ];
    await sql`insert into settings (page, value) values ('region', ${JSON.stringify({ rules, other: 1 })})`.execute(db);
    await regionAssignRules().up(db);
    const { rows } = await sql<{ value: string }>`select value from settings where page = 'region'`.execute(db);
    expect(JSON.parse(rows[0]?.value ?? '')).toEqual({ rules: [rules[0], rules[2], rules[3]], other: 1 });
    // Nothing stored, or nothing to drop: left as it is.
    await regionAssignRules().up(db);
    await db.destroy();
  });
});
