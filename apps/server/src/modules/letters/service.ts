import type { Letter, LetterState, ListData, Saved } from '@parley/protocol';
import type { DbOrTx } from '../../db/index.js';
import type { AuthContext } from '../../lib/caller.js';
import { notFound } from '../../lib/errors.js';
import { isoNow, timeRange } from '../../lib/time.js';
import type { EventHub } from '../../realtime/domain-events.js';
import { lookUpRegion } from '../regions/ip-region.js';
import type { VisitorService } from '../visitors/service.js';
import type { LetterRepository, LetterRow } from './repository.js';

function toLetter(row: LetterRow): Letter {
  return {
    id: row.id,
    // The visitor's public id: agents never see its credential.
    YQToken: row.public_id,
    name: row.name,
    phone: row.phone,
    email: row.email,
    content: row.content,
    createdAt: row.created_at,
    read: row.read === 1,
    handled: row.handled === 1,
    handledBy: row.handled_by,
    note: row.note,
  };
}

export interface LetterListQuery {
  pageNo: number;
  pageSize: number;
  state?: LetterState | undefined;
  keyword?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** Leave-messages: what visitors write while nobody answers, read and handled in the back office. */
export class LetterService {
  constructor(
    private readonly repo: LetterRepository,
    private readonly visitors: VisitorService,
    private readonly events: EventHub,
    /** The site's time zone: a `YYYY-MM-DD` filter is a day there. */
    /** The site's time zone now: the settings may change it. */
    private readonly timeZone: () => string,
  ) {}

  private get db(): DbOrTx {
    return this.repo.db;
  }

  async create(
    input: { YQToken?: string | undefined; name: string; phone?: string | undefined; email?: string | undefined; content: string },
    ip: string,
  ): Promise<Saved> {
    const visitor = input.YQToken ? await this.visitors.byCredential(this.db, input.YQToken) : undefined;
    // A letter sent without a credential is judged by the region of the address it came from.
    this.visitors.refuseBlockedRegion(visitor ? visitor.region_code : lookUpRegion(ip).code);
    const contact = { name: input.name, phone: input.phone ?? '', email: input.email ?? '' };
    const letter = await this.repo.db.transaction().execute(async (tx) => {
      const id = await this.repo.insert(
        { visitor_id: visitor?.id ?? null, ...contact, content: input.content, ip, created_at: isoNow() },
        tx,
      );
      const row = await this.repo.findById(id, tx);
      if (!row) throw new Error(`letter ${id} not read back`);
      const made = toLetter(row);
      await this.events.record(tx, 'letter.created', { letter: made });
      return made;
    });
    if (visitor) await this.visitors.rememberContact(visitor, contact);
    await this.events.emit('letter.created', { letter });
    return { id: letter.id };
  }

  async list(query: LetterListQuery): Promise<ListData<Letter>> {
    const range = timeRange(query.from, query.to, this.timeZone());
    const { rows, total } = await this.repo.list(
      { state: query.state, keyword: query.keyword || undefined, from: range.from, before: range.before },
      query,
    );
    return { list: rows.map(toLetter), total };
  }

  async read(ids: number[]): Promise<void> {
    await this.repo.markRead(ids, isoNow());
  }

  async save(input: { id: number; handled: boolean; note?: string | undefined }, auth: AuthContext): Promise<Letter> {
    const changed = await this.repo.setHandled(input.id, input.handled ? auth.nickname : null, isoNow(), input.note);
    const row = changed ? await this.repo.findById(input.id) : undefined;
    if (!row) throw notFound();
    return toLetter(row);
  }

  async remove(ids: number[]): Promise<void> {
    await this.repo.deleteMany(ids);
  }

  async unreadCount(): Promise<number> {
    return (await this.repo.unread()).count;
  }
}
