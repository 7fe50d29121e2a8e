import type { Readable } from 'node:stream';
import type { AuditEntry, auditListQuery, ListData } from '@parley/protocol';
import type { z } from 'zod';
import { nextSlice } from '../../lib/heavy.js';
import type { Lang } from '../../lib/i18n.js';
import { bound, dayOf } from '../../lib/time.js';
import { auditCsv } from './csv.js';
import type { AuditFilter, AuditRepository, AuditRow } from './repository.js';

/** Rows an export reads per query; each page waits for its turn of the event loop (lib/heavy.ts). */
export const AUDIT_EXPORT_PAGE = 500;

type AuditQuery = z.output<typeof auditListQuery>;

function toEntry(row: AuditRow): AuditEntry {
  let detail: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.detail);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) detail = parsed as Record<string, unknown>;
  } catch {
    // A row is written only by AuditLog, as JSON; an unreadable one is shown without its detail.
  }
  return { id: row.id, actor: row.actor, action: row.action, target: row.target, detail, ip: row.ip, createdAt: row.created_at };
}

/** The audit log's read side: the Admin's list and its CSV export. */
export class AuditService {
  constructor(
    private readonly repo: AuditRepository,
    /** The site's time zone now: `from`/`to` days and the export's times are the site's. */
    private readonly timeZone: () => string,
    private readonly now: () => number = Date.now,
  ) {}

  private filterOf(query: AuditQuery): AuditFilter {
    const zone = this.timeZone();
    return {
      actor: query.actor || undefined,
      action: query.action || undefined,
      from: bound(query.from, 'from', zone),
      to: bound(query.to, 'to', zone),
    };
  }

  async list(query: AuditQuery): Promise<ListData<AuditEntry>> {
    const { rows, total } = await this.repo.list(this.filterOf(query), query);
    return { list: rows.map(toEntry), total };
  }

  exportCsv(query: AuditQuery, lang: Lang): Readable {
    const repo = this.repo;
    const filter = this.filterOf(query);
    async function* pages() {
      let before: number | null = null;
      for (;;) {
        await nextSlice();
        const rows = await repo.before(filter, before, AUDIT_EXPORT_PAGE);
        if (rows.length > 0) yield rows.map(toEntry);
        const last = rows.at(-1);
        if (!last || rows.length < AUDIT_EXPORT_PAGE) return;
        before = last.id;
      }
    }
    return auditCsv(pages(), lang, this.timeZone());
  }

  /** Today in the site's zone: the export's file name carries it. */
  today(): string {
    return dayOf(this.now(), this.timeZone());
  }
}
