import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ListData, VisitorDetail, VisitorRecord } from '@parley/protocol';
import { SocketCode } from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { AuditActor, AuthContext } from '../../lib/caller.js';
import { notFound } from '../../lib/errors.js';
import { isoNow, timeRange } from '../../lib/time.js';
import type { Bus } from '../../realtime/bus.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { HistoryRepository } from '../history/repository.js';
import { toConversation } from '../history/views.js';
import { uploadNameIn } from '../uploads/sweep.js';
import type { VisitorRepository } from '../visitors/repository.js';
import { toVisit } from '../visitors/views.js';
import type { VisitorRecordRepository } from './repository.js';
import { toVisitorRecord } from './views.js';

/** The detail page shows the latest pages and conversations, up to these many. */
const DETAIL_VISITS = 1000;
const DETAIL_CONVERSATIONS = 200;

export interface VisitorEdit {
  YQToken: string;
  nickname?: string | undefined;
  name?: string | undefined;
  phone?: string | undefined;
  email?: string | undefined;
  remark?: string | undefined;
  tags?: string[] | undefined;
}

/** The visitor archive: lists, a visitor's whole record, what agents note, and erasure on request. */
export class VisitorRecordService {
  constructor(
    private readonly repo: VisitorRecordRepository,
    private readonly history: HistoryRepository,
    private readonly visitors: VisitorRepository,
    private readonly bus: Bus,
    private readonly uploadsDir: string,
    /** The site's time zone now: the settings may change it. */
    private readonly timezone: () => string,
    private readonly log: FastifyBaseLogger,
    private readonly audit: AuditLog,
  ) {}

  async list(query: {
    channel?: string | undefined;
    keyword?: string | undefined;
    from?: string | undefined;
    to?: string | undefined;
    pageNo: number;
    pageSize: number;
  }): Promise<ListData<VisitorRecord>> {
    const range = timeRange(query.from, query.to, this.timezone());
    const { rows, total, more, estimated } = await this.repo.list(
      { channel: query.channel, keyword: query.keyword || undefined, from: range.from, before: range.before },
      query,
    );
    return { list: rows.map(toVisitorRecord), total, ...(more ? { more } : {}), ...(estimated ? { estimated } : {}) };
  }

  private async record(publicId: string): Promise<VisitorRecord> {
    const row = await this.repo.find(this.repo.db, publicId);
    if (!row) throw notFound();
    return toVisitorRecord(row);
  }

  async detail(publicId: string): Promise<VisitorDetail> {
    const row = await this.repo.find(this.repo.db, publicId);
    if (!row) throw notFound();
    const [visits, conversations] = await Promise.all([
      this.visitors.listVisits(row.id, DETAIL_VISITS),
      this.history.list({ visitorId: row.id }, { pageNo: 1, pageSize: DETAIL_CONVERSATIONS }),
    ]);
    const labels = await this.history.labelsOf(conversations.rows);
    return {
      visitor: toVisitorRecord(row),
      visits: visits.map(toVisit),
      conversations: conversations.rows.map((conversation) => toConversation(conversation, labels(conversation))),
    };
  }

  /**
   * A visitor has one display name: its `name`, or a generated `V0042` while it has none. So a nickname
   * given without a name becomes the name.
   */
  async save(input: VisitorEdit): Promise<VisitorRecord> {
    const name = input.name ?? input.nickname;
    await this.repo.db.transaction().execute(async (tx) => {
      const visitor = await this.repo.idOf(tx, input.YQToken);
      if (!visitor) throw notFound();
      await this.repo.updateContact(tx, visitor.id, {
        ...(name !== undefined ? { name } : {}),
        ...(input.phone !== undefined ? { phone: input.phone } : {}),
        ...(input.email !== undefined ? { email: input.email } : {}),
      });
      await this.repo.saveNotes(tx, visitor.id, { remark: input.remark, tags: input.tags }, isoNow());
    });
    return this.record(input.YQToken);
  }

  /**
   * Erases visitors on a privacy request: every row about them in one transaction, then their files, then
   * their open sockets are closed. Unknown ids are skipped (already erased). A file that cannot be removed
   * now has no row any more, so the upload sweep removes it later. The audit log keeps which visitor id
   * was erased and by whom, nothing about the visitor.
   */
  async remove(publicIds: string[], _auth: AuthContext, who: AuditActor): Promise<void> {
    const { erased, files } = await this.repo.db.transaction().execute(async (tx) => {
      const visitors = await this.repo.visitorsByPublicId(tx, publicIds);
      if (visitors.length === 0) return { erased: [], files: [] };
      const ids = visitors.map((visitor) => visitor.id);
      const shown = new Set<string>();
      for (const msg of await this.repo.uploadMessages(tx, ids)) {
        const name = uploadNameIn(msg);
        if (name) shown.add(name);
      }
      const names = await this.repo.onlyShownTo(tx, ids, [...shown]);
      for (const visitor of visitors) {
        await this.audit.record(tx, { ...who, action: 'visitor.erase', target: `visitor:${visitor.public_id}` });
      }
      return { erased: visitors.map((visitor) => visitor.public_id), files: await this.repo.erase(tx, ids, names) };
    });
    for (const name of files) {
      await rm(join(this.uploadsDir, name), { force: true }).catch((error: unknown) =>
        this.log.warn({ err: error }, 'an erased visitor file could not be removed now'),
      );
    }
    for (const token of erased) {
      await this.bus.publish({ type: 'visitor.erased', token });
      await this.bus.publish({ type: 'frame.agents', to: 'all', frame: { code: SocketCode.visitorOffline, data: { YQToken: token } } });
    }
  }
}
