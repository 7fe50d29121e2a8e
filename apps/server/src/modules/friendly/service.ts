import type { Friendly, friendlyEditBody, friendlyListQuery, ListData } from '@parley/protocol';
import type { z } from 'zod';
import type { Db } from '../../db/index.js';
import { notFound } from '../../lib/errors.js';
import { isoNow } from '../../lib/time.js';
import type { FriendlyRepository } from './repository.js';

/** Friendly contacts: a shared address book of partners and colleagues outside the agent list. */
export class FriendlyService {
  constructor(
    private readonly db: Db,
    private readonly repo: FriendlyRepository,
  ) {}

  async list(query: z.output<typeof friendlyListQuery>): Promise<ListData<Friendly>> {
    const { rows, total } = await this.repo.list(query.keyword || undefined, query);
    return { list: rows, total };
  }

  /** Creates without an id, else replaces the whole contact: a field left out is emptied. */
  async save(input: z.output<typeof friendlyEditBody>): Promise<{ id: number }> {
    const fields = {
      name: input.name,
      company: input.company ?? '',
      phone: input.phone ?? '',
      email: input.email ?? '',
      wechat: input.wechat ?? '',
      remark: input.remark ?? '',
    };
    if (input.id === undefined) return { id: await this.repo.insert(this.db, { ...fields, created_at: isoNow() }) };
    if (!(await this.repo.exists(this.db, input.id))) throw notFound('friendlyMissing');
    await this.repo.update(this.db, input.id, fields);
    return { id: input.id };
  }

  async remove(ids: number[]): Promise<void> {
    await this.repo.deleteMany(this.db, ids);
  }
}
