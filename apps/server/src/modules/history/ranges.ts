import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * Which messages a conversation holds: its visitor's messages from its first seq to its last. A conversation
 * has no id on its messages; the list, its figures, the detail and the search all read it through these.
 */
type Scope = ExpressionBuilder<Database, 'conversations' | 'visitors'>;

/**
 * The conversation's last seq: an open conversation runs to the visitor's latest message, a closed one
 * to the seq stored when it ended.
 */
export function lastSeq(eb: Scope) {
  return eb
    .case()
    .when('conversations.ended_at', 'is', null)
    .then(eb.ref('visitors.last_seq'))
    .else(eb.ref('conversations.last_seq'))
    .end();
}

/** The conversation's messages: the visitor's messages in its seq range. */
export function messagesIn(eb: Scope) {
  return eb
    .selectFrom('messages')
    .whereRef('messages.visitor_id', '=', 'conversations.visitor_id')
    .whereRef('messages.seq', '>=', 'conversations.first_seq')
    .where('messages.seq', '<=', lastSeq(eb));
}
