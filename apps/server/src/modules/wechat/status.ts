import { WECHAT_ERROR_CODES, type WeChatChannel, type WeChatChannelStatus, type WeChatErrorCode } from '@parley/protocol';
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

  /**
   * Records a failure (a push refused, a send WeChat refused): its code and detail, which the console words
   * in its reader's language, and the English text the API answers beside them; none names a secret.
   */
  async failed(channel: WeChatChannel, code: WeChatErrorCode, error: string, detail = ''): Promise<void> {
    const now = isoNow();
    const failure = { last_error: error.slice(0, 500), last_error_code: code, last_error_detail: detail.slice(0, 200), last_error_at: now };
    await this.db
      .insertInto('wechat_status')
      .values({ channel, last_received_at: null, ...failure })
      .onConflict((oc) => oc.column('channel').doUpdateSet(failure))
      .execute();
  }

  async of(channel: WeChatChannel): Promise<WeChatChannelStatus['status']> {
    const row = await this.db.selectFrom('wechat_status').selectAll().where('channel', '=', channel).executeTakeFirst();
    const code = row?.last_error_code;
    return {
      lastReceivedAt: row?.last_received_at ?? null,
      lastError: row?.last_error ?? null,
      // A row written before codes were kept has its English text only.
      lastErrorCode: code && (WECHAT_ERROR_CODES as readonly string[]).includes(code) ? (code as WeChatErrorCode) : null,
      lastErrorDetail: row?.last_error_detail ?? '',
    };
  }
}
