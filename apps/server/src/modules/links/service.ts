import { randomBytes } from 'node:crypto';
import type { ChatLink, ListData, linkEditBody, linkListQuery } from '@parley/protocol';
import QRCode from 'qrcode';
import type { z } from 'zod';
import { isUniqueViolation } from '../../db/errors.js';
import type { Db, DbOrTx } from '../../db/index.js';
import type { AuditActor, AuthContext } from '../../lib/caller.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { isoNow } from '../../lib/time.js';
import { type AuditLog, changedKeys } from '../audit/audit-log.js';
import type { LinkRepository } from './repository.js';

/** What the conversation side asks of links: tag a new visitor, and whom its link pins it to. */
export interface LinkRouting {
  /** The id of the link with this key; null for no key or an unknown one (the visitor is simply untagged). */
  linkIdOf(db: DbOrTx, key: string | undefined): Promise<number | null>;
  /** The uuid of the agent the visitor's link names, if any. */
  pinnedAgentOf(db: DbOrTx, visitorId: number): Promise<string | null>;
}

/** 48 random bits, URL-safe: 8 characters that fit `linkKey`. */
const newKey = () => randomBytes(6).toString('base64url');
const KEY_ATTEMPTS = 5;

/**
 * Chat links: named addresses `PUBLIC_URL/chat?link=<key>` that tag the visitors arriving through them
 * and may pin them to one agent.
 */
export class LinkService implements LinkRouting {
  constructor(
    private readonly db: Db,
    private readonly repo: LinkRepository,
    /** The absolute base of public addresses, without a trailing slash. */
    private readonly publicBase: () => string,
    private readonly audit: AuditLog,
  ) {}

  private urlOf(key: string): string {
    return `${this.publicBase()}/chat?link=${encodeURIComponent(key)}`;
  }

  async list(query: z.output<typeof linkListQuery>): Promise<ListData<ChatLink>> {
    const { rows, total } = await this.repo.list(query.keyword || undefined, query);
    return {
      list: rows.map((row) => ({
        id: row.id,
        name: row.name,
        key: row.key,
        serviceID: row.service_id,
        remark: row.remark,
        url: this.urlOf(row.key),
        visitors: Number(row.visitors ?? 0),
        conversations: Number(row.conversations ?? 0),
        created_at: row.created_at,
      })),
      total,
    };
  }

  /**
   * Creates without an id (a key is generated when none is given), else updates; an update without a
   * key keeps the link's key, so printed QR codes stay valid. 409 when the key belongs to another link.
   */
  async save(input: z.output<typeof linkEditBody>, _auth: AuthContext, who: AuditActor): Promise<{ id: number }> {
    const serviceId = input.serviceID ?? null;
    if (serviceId !== null && !(await this.repo.agentExists(this.db, serviceId))) throw badRequest('linkAgentMissing');
    const fields = { name: input.name, service_id: serviceId, remark: input.remark ?? '' };
    // Each attempt is one transaction with its audit row: a generated key that clashes is drawn again
    // in a fresh one (a failed statement ends a PostgreSQL transaction).
    const drawn = input.id === undefined && input.key === undefined;
    for (let attempt = 1; ; attempt += 1) {
      const key = input.key ?? newKey();
      try {
        return await this.db.transaction().execute((tx) => this.saveIn(tx, input, fields, key, who));
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        if (drawn && attempt < KEY_ATTEMPTS) continue;
        // Two saves racing for one key: the unique index decides, the loser hears what a clash sounds like.
        throw conflict('linkKeyTaken');
      }
    }
  }

  private async saveIn(
    tx: DbOrTx,
    input: z.output<typeof linkEditBody>,
    fields: { name: string; service_id: string | null; remark: string },
    /** A new link's key: the one given, or one drawn at random. */
    key: string,
    who: AuditActor,
  ): Promise<{ id: number }> {
    const target = `link:${input.name}`;
    if (input.id !== undefined) {
      const current = await this.repo.findById(tx, input.id);
      if (!current) throw notFound('linkMissing');
      const changes = { ...fields, key: input.key ?? current.key };
      await this.assertKeyFree(tx, changes.key, current.id);
      await this.repo.update(tx, current.id, changes);
      await this.audit.record(tx, {
        ...who,
        action: 'link.update',
        target,
        detail: { id: current.id, fields: changedKeys(current, changes) },
      });
      return { id: current.id };
    }
    if (input.key !== undefined) await this.assertKeyFree(tx, key, undefined);
    const id = await this.repo.insert(tx, { ...fields, key, created_at: isoNow() });
    await this.audit.record(tx, { ...who, action: 'link.create', target, detail: { id, key, serviceID: fields.service_id } });
    return { id };
  }

  private async assertKeyFree(tx: DbOrTx, key: string, ownId: number | undefined): Promise<void> {
    const holder = await this.repo.findByKey(tx, key);
    if (holder && holder.id !== ownId) throw conflict('linkKeyTaken');
  }

  /** Visitors who came through these links keep their history; they are simply no longer tagged. */
  async remove(ids: number[], _auth: AuthContext, who: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const links = await this.repo.findMany(tx, ids);
      await this.repo.deleteMany(tx, ids);
      for (const link of links) {
        await this.audit.record(tx, { ...who, action: 'link.delete', target: `link:${link.name}`, detail: { id: link.id, key: link.key } });
      }
    });
  }

  async qrcode(id: number): Promise<{ url: string; qrCode: string }> {
    const link = await this.repo.findById(this.db, id);
    if (!link) throw notFound('linkMissing');
    const url = this.urlOf(link.key);
    const qrCode = await QRCode.toDataURL(url, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2, width: 320 });
    return { url, qrCode };
  }

  async linkIdOf(db: DbOrTx, key: string | undefined): Promise<number | null> {
    if (!key) return null;
    return (await this.repo.findByKey(db, key))?.id ?? null;
  }

  pinnedAgentOf(db: DbOrTx, visitorId: number): Promise<string | null> {
    return this.repo.pinnedAgentOf(db, visitorId);
  }
}
