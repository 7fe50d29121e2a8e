import type { Readable } from 'node:stream';
import { type Conversation, type ConversationDetail, type ListData, MAX_EXPORT_DAYS } from '@parley/protocol';
import type { AuthContext } from '../../lib/caller.js';
import { badRequest, forbidden, notFound } from '../../lib/errors.js';
import { nextSlice } from '../../lib/heavy.js';
import { allowed } from '../../lib/http.js';
import type { Lang } from '../../lib/i18n.js';
import { dayBounds, dayOf, timeRange } from '../../lib/time.js';
import type { NoteRepository, NoteRow } from '../notes/repository.js';
import { toNote } from '../notes/service.js';
import type { VisitorRepository } from '../visitors/repository.js';
import { toMessage, toVisit } from '../visitors/views.js';
import { conversationsCsv } from './csv.js';
import type { ConversationFilter, HistoryRepository } from './repository.js';
import { toConversation } from './views.js';

export interface HistoryFilters {
  keyword?: string | undefined;
  serviceID?: string | undefined;
  channel?: string | undefined;
  score?: number | undefined;
  label?: number | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * Rows read per query while an export streams: one page is one slice of the event loop (lib/heavy.ts),
 * a few milliseconds on SQLite with a year of a busy site.
 */
const EXPORT_PAGE = 100;
const DAY_MS = 86_400_000;
/** A range of whole days in a zone with daylight saving may be an hour longer than its days. */
const DST_SLACK_MS = 3_600_000;
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
    /** Internal notes: the detail lists them among the messages, the export gives them a column. */
    private readonly notes: NoteRepository,
  ) {}

  private filterFor(auth: AuthContext, filters: HistoryFilters): ConversationFilter {
    const range = timeRange(filters.from, filters.to, this.timezone());
    return {
      keyword: filters.keyword || undefined,
      serviceId: filters.serviceID,
      channel: filters.channel,
      score: filters.score,
      label: filters.label,
      from: range.from,
      before: range.before,
      participant: seesAll(auth) ? undefined : auth.uuid,
    };
  }

  async list(auth: AuthContext, query: HistoryFilters & { pageNo: number; pageSize: number }): Promise<ListData<Conversation>> {
    const { rows, total, more, estimated } = await this.repo.list(this.filterFor(auth, query), query);
    const labels = await this.repo.labelsOf(rows);
    return {
      list: rows.map((row) => toConversation(row, labels(row))),
      total,
      ...(more ? { more } : {}),
      ...(estimated ? { estimated } : {}),
    };
  }

  async detail(auth: AuthContext, id: number): Promise<ConversationDetail> {
    const row = await this.repo.find(id, seesAll(auth) ? {} : { participant: auth.uuid });
    if (!row) {
      if (await this.repo.find(id)) throw forbidden();
      throw notFound();
    }
    const [messages, visits, notes] = await Promise.all([
      this.repo.messages(row.visitor_id, row.first_seq, Number(row.last_seq)),
      this.visitors.listVisits(row.visitor_id, DETAIL_VISITS),
      this.notes.ofConversations([row.id]),
    ]);
    const labels = await this.repo.labelsOf([row]);
    return {
      conversation: toConversation(row, labels(row)),
      messages: messages.map((message) => toMessage(message, row.public_id)),
      notes: notes.map((note) => toNote(note, row.public_id)),
      visits: visits.map(toVisit),
    };
  }

  /**
   * What an export reads: the filters, over at most MAX_EXPORT_DAYS days. Without `from` it starts that
   * many days before its last day (`to`, or today), as a person asking for "everything" means the recent
   * past; a wider range is refused (400 naming `from`) rather than cut short without a word.
   */
  exportFilter(auth: AuthContext, filters: HistoryFilters): ConversationFilter {
    const zone = this.timezone();
    const filter = this.filterFor(auth, filters);
    const end = filter.before ? Date.parse(filter.before) : Date.now();
    if (!filter.from) {
      const lastDay = dayOf(end - 1, zone);
      filter.from = dayBounds(shiftDay(lastDay, 1 - MAX_EXPORT_DAYS), zone).from;
    } else if (end - Date.parse(filter.from) > MAX_EXPORT_DAYS * DAY_MS + DST_SLACK_MS) {
      throw badRequest('exportRange', { field: 'from', days: MAX_EXPORT_DAYS });
    }
    return filter;
  }

  /**
   * The conversations as a CSV stream, read a page at a time, each page in a slice of its own
   * (nextSlice), and only as fast as the client reads.
   */
  exportCsv(filter: ConversationFilter, lang: Lang): Readable {
    const source = this.repo.each(filter, EXPORT_PAGE);
    const notesOf = (ids: number[]) => this.notes.ofConversations(ids);
    const labelsOf = (rows: { id: number }[]) => this.repo.labelsOf(rows);
    async function* pages() {
      for (;;) {
        await nextSlice();
        const page = await source.next();
        if (page.done) return;
        // Each page's notes in one query, grouped by conversation for the notes column.
        const notes = new Map<number, NoteRow[]>();
        for (const note of await notesOf(page.value.map((row) => row.id))) {
          notes.set(note.conversation_id, [...(notes.get(note.conversation_id) ?? []), note]);
        }
        const labels = await labelsOf(page.value);
        yield page.value.map((row) => ({
          ...toConversation(row, labels(row)),
          notes: (notes.get(row.id) ?? []).map((note) => toNote(note, row.public_id)),
        }));
      }
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

/** The day `days` days after `day` (before, when negative), both `YYYY-MM-DD`. */
function shiftDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function seesAll(auth: AuthContext): boolean {
  return allowed(auth, { permission: 'seePermissions:seeHistorical' });
}
