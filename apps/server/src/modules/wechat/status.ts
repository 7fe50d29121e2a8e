import type { WeChatChannel, WeChatChannelStatus } from '@parley/protocol';
import type { Db } from '../../db/index.js';
import { isoNow } from '../../lib/time.js';

/** When each channel last received a push, and its last error: what the settings page shows (§11). */
const RECEIPT_EVERY_MS = 1000;

export class WeChatStatus {
  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** The last time each channel's receipt was written: at most once a second, so a busy channel costs no write a push. */
  private readonly written = new Map<WeChatChannel, number>();

  /** Notes a push received; written in the background, a failure only logged (the push is stored already). */
  received(channel: WeChatChannel): void {
    const last = this.written.get(channel) ?? 0;
    if (Date.now() - last < RECEIPT_EVERY_MS) return;
    this.written.set(channel, Date.now());
    this.writeReceived(channel).catch((error: unknown) => this.onError(error));
  }

  private async writeReceived(channel: WeChatChannel): Promise<void> {
    const now = isoNow();
    await this.db
      .insertInto('wechat_status')
      .values({ channel, last_received_at: now, last_error: null, last_error_at: null })
      .onConflict((oc) => oc.column('channel').doUpdateSet({ last_received_at: now }))
      .execute();
  }

  /** Records a failure (a push refused, a send WeChat refused); its text names no secret. */
  async failed(channel: WeChatChannel, error: string): Promise<void> {
    const now = isoNow();
    const text = error.slice(0, 500);
    await this.db
      .insertInto('wechat_status')
      .values({ channel, last_received_at: null, last_error: text, last_error_at: now })
      .onConflict((oc) => oc.column('channel').doUpdateSet({ last_error: text, last_error_at: now }))
      .execute();
  }

  async of(channel: WeChatChannel): Promise<WeChatChannelStatus['status']> {
    const row = await this.db.selectFrom('wechat_status').selectAll().where('channel', '=', channel).executeTakeFirst();
    return { lastReceivedAt: row?.last_received_at ?? null, lastError: row?.last_error ?? null };
  }
}
