import type { Kysely } from 'kysely';

/**
 * Daily rollups of the statistics (CONTRACT §9): per site day, in the zone it was counted in, the day's
 * totals (`dim` '') and each dimension value's figures. A year of a busy site is millions of visits, too
 * many to count within a request; a closed day's figures do not change unless a late event touches them,
 * and the census recorder drops such a day so that it is counted again from the raw tables.
 * Rows are filled on first read of a closed day (see CensusRepository.fillDays), so the table starts
 * empty: it is rebuilt from the raw tables, never a source of its own.
 */
export function censusDays() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('census_days')
        .addColumn('zone', 'varchar(64)', (c) => c.notNull())
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('dim', 'varchar(16)', (c) => c.notNull())
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('visitors', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('visits', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('conversations', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('talkers', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('messages', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('rated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('score_sum', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('census_days_key', ['zone', 'dim', 'day', 'name'])
        .execute();
      // A late event drops its day in every zone.
      await db.schema.createIndex('census_days_day').on('census_days').column('day').execute();

      // Medians do not add up over days: each closed day keeps how many conversations had each value
      // (first response to the second, length to ten seconds), per agent and ('') over all of them.
      await db.schema
        .createTable('census_day_values')
        .addColumn('zone', 'varchar(64)', (c) => c.notNull())
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('what', 'varchar(16)', (c) => c.notNull())
        .addColumn('agent', 'varchar(36)', (c) => c.notNull())
        .addColumn('seconds', 'integer', (c) => c.notNull())
        .addColumn('n', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('census_day_values_key', ['zone', 'what', 'agent', 'day', 'seconds'])
        .execute();
      await db.schema.createIndex('census_day_values_day').on('census_day_values').column('day').execute();

      // The agent pages count conversations, messages and scores per agent over a range: read from the
      // index alone, a year is one ordered pass instead of a row lookup per conversation.
      await db.schema
        .createIndex('conversations_census')
        .on('conversations')
        .columns(['started_at', 'service_id', 'score', 'messages'])
        .execute();
    },
  };
}
