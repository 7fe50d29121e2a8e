import { type Selectable, sql } from 'kysely';
import type { DialectName } from '../../db/dialect.js';
import type { Db, DbOrTx } from '../../db/index.js';
import type { MailStopTokensTable, TranscriptConfirmationsTable } from '../../db/schema.js';

export type ConfirmationRow = Selectable<TranscriptConfirmationsTable>;
export type StopTokenRow = Selectable<MailStopTokensTable>;

/** The PostgreSQL advisory lock that serialises confirmation requests ('pmc1'), so that limits hold under concurrency. */
const REQUEST_LOCK = 0x706d6331;

/** Confirmation mails of transcript addresses, and the addresses that asked to stop (migration 024). */
export class MailConsentRepository {
  constructor(
    readonly db: Db,
    private readonly dialect: DialectName,
  ) {}

  /**
   * Held until the transaction ends: two requests never count the same rows and both insert. SQLite
   * runs one transaction at a time on its single connection already.
   */
  async lockRequests(tx: DbOrTx): Promise<void> {
    if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${REQUEST_LOCK})`.execute(tx);
  }

  /** Confirmation mails asked for since `since`: for the address, for the visitor, and from the requester. */
  async requestsSince(
    tx: DbOrTx,
    since: string,
    by: { emailHash: string; visitorId: number; ip: string },
  ): Promise<{ address: number; visitor: number; requester: number }> {
    const count = async (column: 'email_hash' | 'visitor_id' | 'ip', value: string | number) => {
      const row = await tx
        .selectFrom('transcript_confirmations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(column, '=', value)
        .where('created_at', '>=', since)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    };
    return {
      address: await count('email_hash', by.emailHash),
      visitor: await count('visitor_id', by.visitorId),
      requester: await count('ip', by.ip),
    };
  }

  async insertConfirmation(tx: DbOrTx, row: Omit<ConfirmationRow, 'id' | 'confirmed_at'>): Promise<void> {
    await tx.insertInto('transcript_confirmations').values(row).execute();
  }

  async findConfirmation(tokenHash: string): Promise<ConfirmationRow | undefined> {
    return this.db.selectFrom('transcript_confirmations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** Marks the link used, once, if it is still valid at `now`; whether this call was the one that did. */
  async useConfirmation(id: number, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('transcript_confirmations')
      .set({ confirmed_at: now })
      .where('id', '=', id)
      .where('confirmed_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Whether this visitor opened a confirmation link of this address. */
  async isConfirmed(visitorId: number, emailHash: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('transcript_confirmations')
      .select('id')
      .where('visitor_id', '=', visitorId)
      .where('email_hash', '=', emailHash)
      .where('confirmed_at', 'is not', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  async isStopped(emailHash: string): Promise<boolean> {
    const row = await this.db.selectFrom('mail_stops').select('email_hash').where('email_hash', '=', emailHash).executeTakeFirst();
    return row !== undefined;
  }

  async insertStopToken(row: StopTokenRow): Promise<void> {
    await this.db.insertInto('mail_stop_tokens').values(row).execute();
  }

  async findStopToken(tokenHash: string): Promise<StopTokenRow | undefined> {
    return this.db.selectFrom('mail_stop_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  async stop(emailHash: string, now: string): Promise<void> {
    await this.db
      .insertInto('mail_stops')
      .values({ email_hash: emailHash, created_at: now })
      .onConflict((oc) => oc.column('email_hash').doNothing())
      .execute();
  }

  /** Forgets confirmation mails never used and older than `before`: they count toward no limit any more. */
  async pruneUnused(before: string): Promise<void> {
    await this.db.deleteFrom('transcript_confirmations').where('confirmed_at', 'is', null).where('created_at', '<', before).execute();
  }
}
