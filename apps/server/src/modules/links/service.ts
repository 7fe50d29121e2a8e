import { randomBytes } from 'node:crypto';
import type { ChatLink, ListData, linkEditBody, linkListQuery } from '@parley/protocol';
import QRCode from 'qrcode';
import type { z } from 'zod';
import { isUniqueViolation } from '../../db/errors.js';
import type { Db, DbOrTx } from '../../db/index.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { isoNow } from '../../lib/time.js';
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
  async save(input: z.output<typeof linkEditBody>): Promise<{ id: number }> {
    const serviceId = input.serviceID ?? null;
    if (serviceId !== null && !(await this.repo.agentExists(this.db, serviceId))) throw badRequest('linkAgentMissing');
    const fields = { name: input.name, service_id: serviceId, remark: input.remark ?? '' };
    try {
      if (input.id !== undefined) {
        const current = await this.repo.findById(this.db, input.id);
        if (!current) throw notFound('linkMissing');
        const key = input.key ?? current.key;
        await this.assertKeyFree(key, current.id);
        await this.repo.update(this.db, current.id, { ...fields, key });
        return { id: current.id };
      }
      if (input.key !== undefined) {
        await this.assertKeyFree(input.key, undefined);
        return { id: await this.repo.insert(this.db, { ...fields, key: input.key, created_at: isoNow() }) };
      }
      return { id: await this.insertWithNewKey(fields) };
    } catch (error) {
      // Two saves racing for one key: the unique index decides, the loser hears what a clash sounds like.
      if (isUniqueViolation(error)) throw conflict('linkKeyTaken');
      throw error;
    }
  }

  private async assertKeyFree(key: string, ownId: number | undefined): Promise<void> {
    const holder = await this.repo.findByKey(this.db, key);
    if (holder && holder.id !== ownId) throw conflict('linkKeyTaken');
  }

  private async insertWithNewKey(fields: { name: string; service_id: string | null; remark: string }): Promise<number> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.repo.insert(this.db, { ...fields, key: newKey(), created_at: isoNow() });
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= KEY_ATTEMPTS) throw error;
      }
    }
  }

  /** Visitors who came through these links keep their history; they are simply no longer tagged. */
  async remove(ids: number[]): Promise<void> {
    await this.db.transaction().execute((tx) => this.repo.deleteMany(tx, ids));
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
