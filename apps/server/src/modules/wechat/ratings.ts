import type { Db } from '../../db/index.js';
import type { VisitorRow } from '../../db/schema.js';
import type { EventHub } from '../../realtime/domain-events.js';
import type { ConversationService } from '../conversations/service.js';

/** How long after the prompt a bare digit 1–5 is taken as the user's score. */
export const RATE_REPLY_MS = 30 * 60_000;

const SCORE = /^\s*([1-5])\s*$/;

/** Whether a text looks like a score (only then is it worth asking whether one is awaited). */
export const looksLikeScore = (text: string) => SCORE.test(text);

/**
 * Ratings where WeChat has no form for them: when a WeChat user's conversation ends with ratings on, they
 * are asked in text (the prompt goes out like any notice, in the site's language); a reply that is just a
 * digit 1–5 soon after is their score, stored as the widget's rating is, and not a chat message.
 */
export class WeChatRatings {
  constructor(
    private readonly db: Db,
    private readonly conversations: Pick<ConversationService, 'notice' | 'rate'>,
    private readonly now: () => number = Date.now,
  ) {}

  subscribe(events: EventHub): void {
    events.on('conversation.ended', async ({ visitor, rate }) => {
      if (!rate || (visitor.channel !== 'officialAccount' && visitor.channel !== 'miniProgram')) return;
      await this.db
        .updateTable('wechat_users')
        .set({ rating_asked_at: new Date(this.now()).toISOString() })
        .where('visitor_id', '=', visitor.id)
        .execute();
      await this.conversations.notice({ ...visitor, state: 'end' }, 'tip.ratePrompt', '', true);
    });
  }

  /**
   * Takes `text` as the visitor's score when a prompt awaits one; false when it is a message after all.
   * The prompt is taken by one push only (a conditional update), so a score is recorded once.
   */
  async take(visitor: VisitorRow, credential: string, text: string): Promise<boolean> {
    const score = Number(SCORE.exec(text)?.[1] ?? 0);
    if (!score) return false;
    const since = new Date(this.now() - RATE_REPLY_MS).toISOString();
    const taken = await this.db
      .updateTable('wechat_users')
      .set({ rating_asked_at: null })
      .where('visitor_id', '=', visitor.id)
      .where('rating_asked_at', '>=', since)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) return false;
    await this.conversations.rate(credential, score, undefined);
    await this.conversations.notice(visitor, 'tip.rated', String(score), true);
    return true;
  }
}
