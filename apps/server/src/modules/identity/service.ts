import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Attributes, type IdentifiedVisitor, MAX_ATTRIBUTES } from '@parley/protocol';
import type { Transaction } from 'kysely';
import { isUniqueViolation } from '../../db/errors.js';
import type { Db, DbOrTx } from '../../db/index.js';
import type { Database, VisitorRow } from '../../db/schema.js';
import type { AuditActor } from '../../lib/caller.js';
import { ApiError } from '../../lib/errors.js';
import type { Sealer } from '../../lib/sealed.js';
import { isoNow } from '../../lib/time.js';
import { hashToken, newVisitorCredential, newVisitorPublicId } from '../../lib/tokens.js';
import { ValidationError } from '../../lib/validate.js';
import type { EventHub } from '../../realtime/domain-events.js';
import type { SettingsService } from '../settings/service.js';
import { UNTOUCHED_VISITOR } from '../visitors/repository.js';
import type { VisitorService } from '../visitors/service.js';
import { attributesOf } from '../visitors/views.js';

const CREDENTIAL_PURPOSE = 'visitor:identity-credential';

export const identityRefused = () => new ApiError(401, 'identityInvalid');

/** `HMAC-SHA256(secret, id)` as hex: what the site's server computes, and what the snippets show. */
export function identityHash(secret: string, id: string): string {
  return createHmac('sha256', secret).update(id, 'utf8').digest('hex');
}

/** Whether `hash` is the identity hash of `id`, compared in constant time (a wrong one of the right length tells nothing). */
export function hashMatches(secret: string, id: string, hash: string): boolean {
  if (!secret) return false;
  const expected = Buffer.from(identityHash(secret, id), 'utf8');
  const given = Buffer.from(hash.toLowerCase(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface Told {
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  attributes?: Attributes | undefined;
}

/**
 * Verified visitor identity and attributes (CONTRACT §13). The site's server vouches for its user with
 * `HMAC-SHA256(identitySecret, id)`; an identified user is one visitor row, whose credential is kept
 * sealed so that every browser the user identifies on is handed the same one (one history, one
 * conversation, one unread count). An anonymous visitor that identifies brings its history along; a
 * visitor identified as one user never becomes another's: the browser gets that user's visitor instead.
 */
export class IdentityService {
  constructor(
    private readonly db: Db,
    private readonly visitors: VisitorService,
    private readonly settings: Pick<SettingsService, 'current' | 'save'>,
    private readonly sealer: Sealer,
    private readonly events: EventHub,
  ) {}

  private get repo() {
    return this.visitors.repo;
  }

  // ------------------------------------------------------------------ the secret

  /** The secret as the Admin reads it: one is made (and audited, its value never) on the first read. */
  async readSecret(by: string, who: AuditActor): Promise<{ identitySecret: string }> {
    const current = this.settings.current('appSetting').identitySecret;
    if (current) return { identitySecret: current };
    return this.rotateSecret(by, who);
  }

  /** A new secret: hashes made with the old one are refused from now on. */
  async rotateSecret(by: string, who: AuditActor): Promise<{ identitySecret: string }> {
    const identitySecret = randomBytes(32).toString('base64url');
    await this.settings.save('appSetting', { ...this.settings.current('appSetting'), identitySecret }, by, who);
    return { identitySecret };
  }

  /** Whether visitors must be identified to send messages. */
  requireIdentity(): boolean {
    return this.settings.current('appSetting').requireIdentity;
  }

  // ------------------------------------------------------------------ the visitor API

  async identify(input: { YQToken: string; id: string; hash: string } & Told): Promise<IdentifiedVisitor> {
    if (!hashMatches(this.settings.current('appSetting').identitySecret, input.id, input.hash)) throw identityRefused();
    const visitor = await this.visitors.orFail(input.YQToken);
    this.visitors.refuseBlockedRegion(visitor.region_code);
    if (visitor.user_id === input.id) return this.view(await this.tell(visitor, input), input.YQToken);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.join(visitor, input.YQToken, input);
      } catch (error) {
        // Two browsers of a new user identifying at once: one made the user's visitor, the other joins it.
        if (!isUniqueViolation(error) || attempt > 0) throw error;
      }
    }
  }

  /** `setAttributes` (and name, email, phone) without identity: attributes given are added to those kept. */
  async setAttributes(input: { YQToken: string } & Told): Promise<IdentifiedVisitor> {
    const visitor = await this.visitors.orFail(input.YQToken);
    this.visitors.refuseBlockedRegion(visitor.region_code);
    return this.view(await this.tell(visitor, input), input.YQToken);
  }

  /**
   * Ties this browser to the user's visitor: this one becomes it, or it moves into the one that exists.
   * One transaction holds the identity, a merge, what the site told and the `visitor.identified` webhook
   * delivery (with `visitor.created` for a new one): a crash keeps all of it or none.
   */
  private async join(visitor: VisitorRow, credential: string, input: { id: string } & Told): Promise<IdentifiedVisitor> {
    const outcome = await this.db.transaction().execute(async (tx) => {
      const owner = await tx.selectFrom('visitors').selectAll().where('user_id', '=', input.id).executeTakeFirst();
      let joined: VisitorRow;
      let kept: string;
      let created: VisitorRow | null = null;
      let merged: { from: VisitorRow; into: VisitorRow } | null = null;
      if (!owner && visitor.user_id === null) {
        // The first browser of this user: the anonymous visitor it was becomes the user's.
        await this.repo.update(tx, visitor.id, {
          user_id: input.id,
          identity_credential: this.sealer.seal(credential, `${CREDENTIAL_PURPOSE}:${visitor.id}`),
        });
        joined = visitor;
        kept = credential;
      } else if (!owner) {
        // Identified as someone else before (no reset at their logout): this user starts a visitor of their own.
        kept = newVisitorCredential();
        created = await this.repo.insert(tx, {
          ...freshFrom(visitor),
          token_hash: hashToken(kept),
          public_id: newVisitorPublicId(),
          user_id: input.id,
        });
        await tx
          .updateTable('visitors')
          .set({ identity_credential: this.sealer.seal(kept, `${CREDENTIAL_PURPOSE}:${created.id}`) })
          .where('id', '=', created.id)
          .execute();
        await this.events.record(tx, 'visitor.created', { visitor: created });
        joined = created;
      } else {
        kept = this.sealer.open(owner.identity_credential ?? '', `${CREDENTIAL_PURPOSE}:${owner.id}`);
        // Open consoles follow both: the anonymous conversation ends there, the user's takes its state.
        if (visitor.user_id === null) merged = await this.merge(tx, visitor, owner);
        joined = owner;
      }
      const told = await this.tell((await this.repo.findById(tx, joined.id)) ?? joined, input, tx);
      const mergedFrom = merged ? visitor.public_id : null;
      await this.events.record(tx, 'visitor.identified', { visitor: told, mergedFrom });
      return { told, kept, created, merged, mergedFrom };
    });
    if (outcome.created) await this.events.emit('visitor.created', { visitor: outcome.created });
    if (outcome.merged) await this.events.emit('visitor.merged', outcome.merged);
    await this.events.emit('visitor.identified', { visitor: outcome.told, mergedFrom: outcome.mergedFrom });
    return this.view(outcome.told, outcome.kept);
  }

  /**
   * Moves an anonymous visitor's history into the user's visitor, after what the user's holds (seqs
   * continue from there), and retires it: its credential stops opening anything.
   */
  private async merge(tx: Transaction<Database>, from: VisitorRow, into: VisitorRow): Promise<{ from: VisitorRow; into: VisitorRow }> {
    // Read again under the transaction's writes: the seqs to shift past are the ones committed now.
    const target = await tx
      .updateTable('visitors')
      .set((eb) => ({ last_seq: eb('last_seq', '+', 0) }))
      .where('id', '=', into.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const source = await tx
      .updateTable('visitors')
      .set({ token_hash: hashToken(newVisitorCredential()), merged_into: into.id, online: 0 })
      .where('id', '=', from.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const offset = target.last_seq;
    const now = isoNow();
    await tx
      .updateTable('messages')
      .set((eb) => ({ visitor_id: into.id, seq: eb('seq', '+', offset) }))
      .where('visitor_id', '=', from.id)
      .execute();
    const openHere = target.state !== 'end';
    if (openHere) {
      // The user's conversation stays the open one; the one the anonymous visitor had open is closed.
      await tx
        .updateTable('conversations')
        .set({ ended_at: now })
        .where('visitor_id', '=', from.id)
        .where('ended_at', 'is', null)
        .execute();
    }
    await tx
      .updateTable('conversations')
      .set((eb) => ({ visitor_id: into.id, first_seq: eb('first_seq', '+', offset), last_seq: eb('last_seq', '+', offset) }))
      .where('visitor_id', '=', from.id)
      .execute();
    await tx
      .updateTable('conversation_notes')
      .set((eb) => ({ visitor_id: into.id, after_seq: eb('after_seq', '+', offset) }))
      .where('visitor_id', '=', from.id)
      .execute();
    await tx.updateTable('note_mentions').set({ visitor_id: into.id }).where('visitor_id', '=', from.id).execute();
    await tx.updateTable('visits').set({ visitor_id: into.id }).where('visitor_id', '=', from.id).execute();
    await tx.updateTable('letters').set({ visitor_id: into.id }).where('visitor_id', '=', from.id).execute();
    await tx.updateTable('uploads').set({ visitor_id: into.id }).where('visitor_id', '=', from.id).execute();
    await tx.deleteFrom('conversation_timers').where('visitor_id', '=', from.id).execute();
    await tx.deleteFrom('monitors').where('visitor_id', '=', from.id).execute();
    await tx
      .updateTable('visitors')
      .set({
        last_seq: target.last_seq + source.last_seq,
        umsg: target.umsg + source.umsg,
        smsg: target.smsg + source.smsg,
        unread: target.unread + source.unread,
        ...(openHere || source.state === 'end'
          ? {}
          : { state: source.state, service_id: source.service_id, wait_since: source.wait_since }),
        name: target.name || source.name,
        email: target.email || source.email,
        phone: target.phone || source.phone,
      })
      .where('id', '=', into.id)
      .execute();
    const ended = await tx
      .updateTable('visitors')
      .set({ state: 'end', service_id: null, wait_since: null })
      .where('id', '=', from.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { from: ended, into: await tx.selectFrom('visitors').selectAll().where('id', '=', into.id).executeTakeFirstOrThrow() };
  }

  /** Stores what the site told: name, email and phone when given, attributes added to those kept. */
  private async tell(visitor: VisitorRow, told: Told, db: DbOrTx = this.db): Promise<VisitorRow> {
    const changes: Partial<Pick<VisitorRow, 'name' | 'email' | 'phone' | 'attributes'>> = {};
    if (told.name) changes.name = told.name;
    if (told.email) changes.email = told.email;
    if (told.phone) changes.phone = told.phone;
    if (told.attributes && Object.keys(told.attributes).length > 0) {
      const merged = { ...attributesOf(visitor), ...told.attributes };
      if (Object.keys(merged).length > MAX_ATTRIBUTES) throw new ValidationError('attributes', 'reasonTooBig', { max: MAX_ATTRIBUTES });
      changes.attributes = JSON.stringify(merged);
    }
    if (Object.keys(changes).length === 0) return visitor;
    await this.repo.update(db, visitor.id, changes);
    return { ...visitor, ...changes };
  }

  private view(row: VisitorRow, credential: string): IdentifiedVisitor {
    return {
      YQToken: credential,
      id: row.public_id,
      userId: row.user_id,
      name: row.name,
      email: row.email,
      phone: row.phone,
      attributes: attributesOf(row),
    };
  }
}

/** A new visitor row for the same browser as `row`: what the browser told of itself, none of its history. */
function freshFrom(row: VisitorRow): Omit<VisitorRow, 'id' | 'token_hash' | 'public_id' | 'user_id'> {
  const now = isoNow();
  return {
    ...UNTOUCHED_VISITOR,
    channel: row.channel,
    ip: row.ip,
    region: row.region,
    region_code: row.region_code,
    user_agent: row.user_agent,
    platform: row.platform,
    browser: row.browser,
    device: row.device,
    referrer: row.referrer,
    source: row.source,
    engine: row.engine,
    keyword: row.keyword,
    first_url: row.first_url,
    lang: row.lang,
    created_at: now,
    last_seen_at: now,
    link_id: row.link_id,
    identity_credential: null,
    attributes: '{}',
    merged_into: null,
  };
}
