import type { Friendly, friendlyEditBody, friendlyListQuery, ListData } from '@parley/protocol';
import type { z } from 'zod';
import type { Db } from '../../db/index.js';
import type { AuditActor, AuthContext } from '../../lib/caller.js';
import { notFound } from '../../lib/errors.js';
import { isoNow } from '../../lib/time.js';
import { type AuditLog, changedKeys } from '../audit/audit-log.js';
import type { FriendlyRepository } from './repository.js';

/** Friendly contacts: a shared address book of partners and colleagues outside the agent list. */
export class FriendlyService {
  constructor(
    private readonly db: Db,
    private readonly repo: FriendlyRepository,
    private readonly audit: AuditLog,
  ) {}

  async list(query: z.output<typeof friendlyListQuery>): Promise<ListData<Friendly>> {
    const { rows, total } = await this.repo.list(query.keyword || undefined, query);
    return { list: rows, total };
  }

  /** Creates without an id, else replaces the whole contact: a field left out is emptied. */
  async save(input: z.output<typeof friendlyEditBody>, _auth: AuthContext, who: AuditActor): Promise<{ id: number }> {
    const fields = {
      name: input.name,
      company: input.company ?? '',
      phone: input.phone ?? '',
      email: input.email ?? '',
      wechat: input.wechat ?? '',
      remark: input.remark ?? '',
    };
    const target = `friendly:${input.name}`;
    return this.db.transaction().execute(async (tx) => {
      if (input.id === undefined) {
        const id = await this.repo.insert(tx, { ...fields, created_at: isoNow() });
        await this.audit.record(tx, { ...who, action: 'friendly.create', target, detail: { id } });
        return { id };
      }
      const current = await this.repo.findById(tx, input.id);
      if (!current) throw notFound('friendlyMissing');
      await this.repo.update(tx, input.id, fields);
      const detail = { id: input.id, fields: changedKeys(current, fields) };
      await this.audit.record(tx, { ...who, action: 'friendly.update', target, detail });
      return { id: input.id };
    });
  }

  async remove(ids: number[], _auth: AuthContext, who: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const named = await this.repo.findMany(tx, ids);
      await this.repo.deleteMany(tx, ids);
      for (const contact of named) {
        await this.audit.record(tx, { ...who, action: 'friendly.delete', target: `friendly:${contact.name}`, detail: { id: contact.id } });
      }
    });
  }
}
