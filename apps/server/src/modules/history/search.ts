import type { DialectName } from '../../db/dialect.js';
import type { Db } from '../../db/index.js';
import { candidateIds } from '../../db/search.js';
import { containsText } from '../../db/sql.js';

/**
 * What a keyword finds, through the search indexes (`db/search.ts`): the index narrows the rows down to
 * those holding every gram of the keyword, and each is then checked with the same "contains" test the
 * lists always used, so the index makes a search fast, never different. Rows the indexer has not reached
 * yet are looked through as before.
 */
export class KeywordSearch {
  constructor(
    private readonly db: Db,
    private readonly dialect: DialectName,
  ) {}

  /**
   * The visitors a keyword finds, as subqueries of their ids: by name, phone, email, the site's user id or
   * any attribute the site gave (CONTRACT §13), by an agent's remark, and `V0042` finds the unnamed visitor 42.
   */
  visitorIds(keyword: string) {
    const byFields = this.db
      .selectFrom('visitors')
      .select('visitors.id')
      .where('visitors.id', 'in', candidateIds(this.dialect, 'visitor_search', keyword))
      .where((eb) =>
        eb.or(
          ['visitors.name', 'visitors.phone', 'visitors.email', 'visitors.user_id', 'visitors.attributes'].map((column) =>
            containsText(column, keyword),
          ),
        ),
      );
    // Remarks are few (one per visitor an agent wrote about): looked through without an index.
    const byRemark = this.db
      .selectFrom('visitor_notes')
      .select('visitor_notes.visitor_id as id')
      .where(containsText('visitor_notes.remark', keyword));
    const generated = /^v0*(\d{1,9})$/i.exec(keyword);
    if (!generated) return [byFields, byRemark];
    const byNumber = this.db
      .selectFrom('visitors')
      .select('visitors.id')
      .where('visitors.id', '=', Number(generated[1]))
      .where('visitors.name', '=', '');
    return [byFields, byRemark, byNumber];
  }

  /**
   * The conversations a keyword finds: those of the visitors it finds, and those holding a message that
   * contains it. One list, so the database builds it once for the page and once for the count.
   */
  conversationIds(keyword: string) {
    const visitors = this.visitorIds(keyword);
    return this.db
      .selectFrom('conversations as of')
      .select('of.id')
      .where((eb) => eb.or(visitors.map((ids) => eb('of.visitor_id', 'in', ids))))
      .union(this.conversationsWithMessage(keyword));
  }

  /**
   * The conversations holding a message that contains the keyword (withdrawn messages and system tips
   * aside): a conversation holds its visitor's messages from its first seq to its last (to the visitor's
   * latest while it is open, the only one that can be).
   */
  private conversationsWithMessage(keyword: string) {
    return (
      this.db
        .selectFrom('messages')
        // A cross join keeps SQLite's join order: from the few messages found to their conversations, never
        // through every conversation (a plain join's order is the planner's guess).
        .crossJoin('conversations as held')
        .whereRef('held.visitor_id', '=', 'messages.visitor_id')
        .whereRef('messages.seq', '>=', 'held.first_seq')
        .select('held.id')
        .where((eb) => eb.or([eb('held.ended_at', 'is', null), eb('messages.seq', '<=', eb.ref('held.last_seq'))]))
        .where('messages.id', 'in', candidateIds(this.dialect, 'message_search', keyword))
        .where('messages.withdrawn', '=', 0)
        .where('messages.role', '<>', 'tip')
        .where(containsText('messages.msg', keyword))
    );
  }
}
