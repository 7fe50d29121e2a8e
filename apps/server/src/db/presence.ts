import type { ExpressionBuilder } from 'kysely';
import type { Database } from './schema.js';

/**
 * Whether the agent of an `agents` row has a console open on some process: a presence row fresher than
 * `since` (rows of a process that died go stale). Shared by every repository that reads presence.
 */
export function consoleOpen(eb: ExpressionBuilder<Database, 'agents'>, since: string) {
  return eb.exists(
    eb
      .selectFrom('agent_presence')
      .select('agent_presence.agent_uuid')
      .whereRef('agent_presence.agent_uuid', '=', 'agents.uuid')
      .where('agent_presence.seen_at', '>', since),
  );
}
