import type { Db } from '../../db/index.js';

export interface Purged {
  messages: number;
  conversations: number;
  visits: number;
  letters: number;
}

/** SQL of the retention purge: what is older than a cut-off goes, what is still going on stays. */
export class RetentionRepository {
  constructor(private readonly db: Db) {}

  /** Deletes, before `cutoff` (ISO time): ended conversations, their messages, visits and letters. */
  purgeBefore(cutoff: string): Promise<Purged> {
    return this.db.transaction().execute(async (tx) => {
      // A message of a conversation still open stays, however old: the agent still reads it.
      const messages = await tx
        .deleteFrom('messages')
        .where('created_at', '<', cutoff)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('conversations')
                .select('conversations.id')
                .whereRef('conversations.visitor_id', '=', 'messages.visitor_id')
                .where('conversations.ended_at', 'is', null)
                .whereRef('conversations.first_seq', '<=', 'messages.seq'),
            ),
          ),
        )
        .executeTakeFirst();
      const conversations = await tx
        .deleteFrom('conversations')
        .where('ended_at', 'is not', null)
        .where('ended_at', '<', cutoff)
        .executeTakeFirst();
      const visits = await tx.deleteFrom('visits').where('created_at', '<', cutoff).executeTakeFirst();
      const letters = await tx.deleteFrom('letters').where('created_at', '<', cutoff).executeTakeFirst();
      return {
        messages: Number(messages.numDeletedRows),
        conversations: Number(conversations.numDeletedRows),
        visits: Number(visits.numDeletedRows),
        letters: Number(letters.numDeletedRows),
      };
    });
  }
}
