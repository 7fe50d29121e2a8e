import type { Kysely } from 'kysely';

/**
 * The medians' value counts (census_day_values) summed per closed month, and each agent's conversations. A year of a busy site is about
 * 250,000 day rows per call for the agents' medians; the same counts per month are a few thousand, and the
 * partial months at a range's ends are still read day by day. Same precision as the days: first response
 * to the second, length to ten seconds. Filled on first read from the day rows, dropped with any of its
 * days (a late event), so it is never a source of its own either.
 */
export function censusMonthValues() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // A month counted, kept even when it had no values at all, so that an empty month is not counted again.
      await db.schema
        .createTable('census_months')
        .addColumn('zone', 'varchar(64)', (c) => c.notNull())
        .addColumn('month', 'varchar(7)', (c) => c.notNull())
        .addPrimaryKeyConstraint('census_months_key', ['zone', 'month'])
        .execute();
      await db.schema
        .createTable('census_month_values')
        .addColumn('zone', 'varchar(64)', (c) => c.notNull())
        .addColumn('month', 'varchar(7)', (c) => c.notNull())
        .addColumn('what', 'varchar(16)', (c) => c.notNull())
        .addColumn('agent', 'varchar(36)', (c) => c.notNull())
        .addColumn('seconds', 'integer', (c) => c.notNull())
        .addColumn('n', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('census_month_values_key', ['zone', 'what', 'agent', 'month', 'seconds'])
        .execute();
      // A late event drops its month in every zone.
      await db.schema.createIndex('census_month_values_month').on('census_month_values').column('month').execute();

      // Each agent's conversations begun in the month and their messages: counting them over a year is a
      // pass over 300,000 conversations, the slowest part of the agents' page once the medians are summed.
      await db.schema
        .createTable('census_month_agents')
        .addColumn('zone', 'varchar(64)', (c) => c.notNull())
        .addColumn('month', 'varchar(7)', (c) => c.notNull())
        .addColumn('agent', 'varchar(36)', (c) => c.notNull())
        .addColumn('conversations', 'integer', (c) => c.notNull())
        .addColumn('messages', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('census_month_agents_key', ['zone', 'month', 'agent'])
        .execute();
      await db.schema.createIndex('census_month_agents_month').on('census_month_agents').column('month').execute();
    },
  };
}
