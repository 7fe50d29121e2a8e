import { type Kysely, sql } from 'kysely';

/**
 * A region rule that "assigns" must now name its agent. Rules saved before without one never routed
 * anyone; they are dropped from the stored region page here, so that the page (and its block and tip
 * rules) still reads instead of falling back to the defaults.
 */
export function regionAssignRules() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const { rows } = await sql<{ value: string }>`select value from settings where page = 'region'`.execute(db);
      const stored = rows[0];
      if (!stored) return;
      let page: unknown;
      try {
        page = JSON.parse(stored.value);
      } catch {
        return;
      }
      if (typeof page !== 'object' || page === null || !Array.isArray((page as { rules?: unknown }).rules)) return;
      const rules = (page as { rules: Record<string, unknown>[] }).rules;
      const kept = rules.filter((rule) => !(rule?.action === 'assign' && !rule.serviceID));
      if (kept.length === rules.length) return;
      await sql`update settings set value = ${JSON.stringify({ ...page, rules: kept })} where page = 'region'`.execute(db);
    },
  };
}
