import type { Readable } from 'node:stream';
import type { Conversation, ConversationDetail, ListData } from '@parley/protocol';
import { forbidden, notFound } from '../../lib/errors.js';
import { allowed } from '../../lib/http.js';
import type { Lang } from '../../lib/i18n.js';
import { timeRange } from '../../lib/time.js';
import type { AuthContext } from '../auth/service.js';
import { toMessage } from '../conversations/views.js';
import type { VisitorRepository } from '../visitors/repository.js';
import { toVisit } from '../visitors/views.js';
import { conversationsCsv } from './csv.js';
import type { ConversationFilter, HistoryRepository } from './repository.js';
import { toConversation } from './views.js';

export interface HistoryFilters {
  keyword?: string | undefined;
  serviceID?: string | undefined;
  channel?: string | undefined;
  score?: number | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** Rows read per query while an export streams. */
const EXPORT_PAGE = 200;
/** A conversation's detail shows the visitor's latest pages, up to this many. */
const DETAIL_VISITS = 500;

/**
 * The conversation history. Holders of seeHistorical read every conversation; any other agent reads
 * the ones they took part in (was given, or spoke in), and nothing else exists for them.
 */
export class HistoryService {
  constructor(
    private readonly repo: HistoryRepository,
    private readonly visitors: VisitorRepository,
    /** The site's time zone now: the settings may change it. */
    private readonly timezone: () => string,
  ) {}

  private filterFor(auth: AuthContext, filters: HistoryFilters): ConversationFilter {
    const range = timeRange(filters.from, filters.to, this.timezone());
    return {
      keyword: filters.keyword || undefined,
      serviceId: filters.serviceID,
      channel: filters.channel,
      score: filters.score,
      from: range.from,
      before: range.before,
      participant: seesAll(auth) ? undefined : auth.uuid,
    };
  }

  async list(auth: AuthContext, query: HistoryFilters & { pageNo: number; pageSize: number }): Promise<ListData<Conversation>> {
    const { rows, total } = await this.repo.list(this.filterFor(auth, query), query);
    return { list: rows.map(toConversation), total };
  }

  async detail(auth: AuthContext, id: number): Promise<ConversationDetail> {
    const row = await this.repo.find(id, seesAll(auth) ? {} : { participant: auth.uuid });
    if (!row) {
      if (await this.repo.find(id)) throw forbidden();
      throw notFound();
    }
    const [messages, visits] = await Promise.all([
      this.repo.messages(row.visitor_id, row.first_seq, Number(row.last_seq)),
      this.visitors.listVisits(row.visitor_id, DETAIL_VISITS),
    ]);
    return {
      conversation: toConversation(row),
      messages: messages.map((message) => toMessage(message, row.public_id)),
      visits: visits.map(toVisit),
    };
  }

  /** The filtered conversations as a CSV stream, read from the database a page at a time. */
  exportCsv(auth: AuthContext, filters: HistoryFilters, lang: Lang): Readable {
    const repo = this.repo;
    const filter = this.filterFor(auth, filters);
    async function* pages() {
      for await (const rows of repo.each(filter, EXPORT_PAGE)) yield rows.map(toConversation);
    }
    return conversationsCsv(pages(), lang, this.timezone());
  }

  /** Today in the site's zone, `YYYY-MM-DD`: the export's file name carries it. */
  today(): string {
    return new Intl.DateTimeFormat('en-CA', { timeZone: this.timezone(), year: 'numeric', month: '2-digit', day: '2-digit' }).format(
      new Date(),
    );
  }
}

function seesAll(auth: AuthContext): boolean {
  return allowed(auth, { permission: 'seePermissions:seeHistorical' });
}
