import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { consoleOpen } from '../../db/presence.js';

/** A span of instants, both ends included (ISO 8601 UTC text, as stored). */
export interface Span {
  from: string;
  to: string;
}

const rows = sql<number | string>`count(*)`.as('n');

/** Rows a query matches (PostgreSQL answers COUNT as text, hence Number). */
async function counted(query: { executeTakeFirstOrThrow(): Promise<{ n: number | string }> }): Promise<number> {
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** SQL of the home page's figures: each one COUNT over indexed columns. */
export class HomeRepository {
  constructor(private readonly db: Db) {}

  async liveFigures(today: Span) {
    const visitors = () => this.db.selectFrom('visitors');
    const [visitorsOnline, waiting, inConversation, visitorsToday, conversationsToday, unreadLetters] = await Promise.all([
      counted(visitors().where('online', '=', 1).select(rows)),
      counted(visitors().where('state', '=', 'wait').select(rows)),
      counted(visitors().where('state', '=', 'current').select(rows)),
      // A visitor online since before midnight was last seen then, and is still a visitor of today.
      counted(
        visitors()
          .where((eb) => eb.or([eb.and([eb('last_seen_at', '>=', today.from), eb('last_seen_at', '<=', today.to)]), eb('online', '=', 1)]))
          .select(rows),
      ),
      counted(this.db.selectFrom('conversations').where('started_at', '>=', today.from).where('started_at', '<=', today.to).select(rows)),
      counted(this.db.selectFrom('letters').where('read', '=', 0).select(rows)),
    ]);
    return { visitorsOnline, waiting, inConversation, visitorsToday, conversationsToday, unreadLetters };
  }

  /** Enabled agents, and those of them online (state '0') with a console open somewhere. */
  async agentFigures(presentSince: string) {
    const enabled = () => this.db.selectFrom('agents').where('agents.disabled', '=', 0);
    const [agentsOnline, agentsTotal] = await Promise.all([
      counted(
        enabled()
          .where('agents.state', '=', '0')
          .where((eb) => consoleOpen(eb, presentSince))
          .select(rows),
      ),
      counted(enabled().select(rows)),
    ]);
    return { agentsOnline, agentsTotal };
  }

  async signInFigures(today: Span) {
    const during = () => this.db.selectFrom('login_log').where('created_at', '>=', today.from).where('created_at', '<=', today.to);
    const [signInsToday, signInFailuresToday] = await Promise.all([
      // A right password still waiting for its two-factor code is no sign-in yet: the code's success is.
      counted(during().where('result', '=', 'success').where('reason', '<>', 'mfa_required').select(rows)),
      counted(during().where('result', '<>', 'success').select(rows)),
    ]);
    return { signInsToday, signInFailuresToday };
  }
}
