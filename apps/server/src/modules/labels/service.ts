import type { ConversationLabels, Label, LabelRef, ListData, labelEditBody, labelListQuery } from '@parley/protocol';
import type { z } from 'zod';
import { isUniqueViolation } from '../../db/errors.js';
import type { Db } from '../../db/index.js';
import { type AuditActor, type AuthContext, isSupervisor } from '../../lib/caller.js';
import { ApiError, forbidden, notFound } from '../../lib/errors.js';
import { isoNow } from '../../lib/time.js';
import { ValidationError } from '../../lib/validate.js';
import type { EventHub } from '../../realtime/domain-events.js';
import { type AuditLog, changedKeys } from '../audit/audit-log.js';
import type { ConversationRepository } from '../conversations/repository.js';
import type { ConversationService } from '../conversations/service.js';
import type { VisitorRepository } from '../visitors/repository.js';
import type { LabelRepository } from './repository.js';

/** Names are unique whatever their case: "VIP" and "vip" are one label. */
const keyOf = (name: string) => name.toLowerCase();
const nameTaken = () => new ValidationError('name', 'reasonNameTaken', {});

/**
 * Conversation labels: the managed list (any agent reads it; setPermissions:service changes it, audited)
 * and the labels on conversations (their agent or a supervisor sets them).
 */
export class LabelService {
  constructor(
    private readonly db: Db,
    private readonly repo: LabelRepository,
    private readonly audit: AuditLog,
    private readonly events: EventHub,
    private readonly visitors: VisitorRepository,
    private readonly conversationRepo: ConversationRepository,
    private readonly conversations: ConversationService,
  ) {}

  async list(query: z.output<typeof labelListQuery>): Promise<ListData<Label>> {
    const { rows, total } = await this.repo.list(query.keyword || undefined, query);
    return {
      list: rows.map((row) => ({
        id: row.id,
        name: row.name,
        color: row.color,
        description: row.description,
        conversations: Number(row.conversations ?? 0),
        createdAt: row.created_at,
      })),
      total,
    };
  }

  /** Creates without an id, else replaces the label (a description left out is emptied). */
  async save(input: z.output<typeof labelEditBody>, _auth: AuthContext, who: AuditActor): Promise<{ id: number }> {
    const fields = {
      name: input.name,
      name_key: keyOf(input.name),
      color: input.color.toLowerCase(),
      description: input.description ?? '',
    };
    const target = `label:${input.name}`;
    try {
      return await this.db.transaction().execute(async (tx) => {
        const holder = await this.repo.findByKey(tx, fields.name_key);
        if (holder && holder.id !== input.id) throw nameTaken();
        if (input.id === undefined) {
          const id = await this.repo.insert(tx, { ...fields, created_at: isoNow() });
          await this.audit.record(tx, { ...who, action: 'label.create', target, detail: { id, color: fields.color } });
          return { id };
        }
        const current = await this.repo.findById(tx, input.id);
        if (!current) throw notFound('labelMissing');
        await this.repo.update(tx, input.id, fields);
        const detail = { id: input.id, fields: changedKeys(current, fields).filter((key) => key !== 'name_key') };
        await this.audit.record(tx, { ...who, action: 'label.update', target, detail });
        return { id: input.id };
      });
    } catch (error) {
      // Two saves of one name at once: the unique index lets one through.
      if (isUniqueViolation(error)) throw nameTaken();
      throw error;
    }
  }

  async remove(ids: number[], _auth: AuthContext, who: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const named = await this.repo.findMany(tx, ids);
      await this.repo.deleteMany(tx, ids);
      for (const label of named) {
        await this.audit.record(tx, { ...who, action: 'label.delete', target: `label:${label.name}`, detail: { id: label.id } });
      }
    });
  }

  /** The labels of the latest conversation of each visitor the caller sees in the workbench. */
  async ofWorkbench(auth: AuthContext): Promise<{ list: ConversationLabels[] }> {
    const { list } = await this.conversations.userList(auth);
    const latest = await this.repo.latestConversations(list.map((visitor) => visitor.YQToken));
    const labels = await this.repo.ofConversations([...latest.values()]);
    const answer: ConversationLabels[] = [];
    for (const [YQToken, conversationId] of latest) {
      const held = labels.get(conversationId);
      if (held) answer.push({ YQToken, conversationId, labels: held });
    }
    return { list: answer };
  }

  /**
   * Replaces the labels of the visitor's latest conversation, open or ended: its agent may, and a
   * supervisor; anyone else gets 403. Unknown label ids answer 400 naming `labelIds`.
   */
  async setOnConversation(auth: AuthContext, publicId: string, labelIds: number[]): Promise<ConversationLabels> {
    const visitor = await this.visitors.findByPublicId(this.db, publicId);
    if (!visitor) throw notFound();
    const conversation = await this.conversationRepo.latest(this.db, visitor.id);
    if (!conversation) throw notFound();
    if (conversation.service_id !== auth.uuid && !isSupervisor(auth)) {
      throw conversation.service_id ? new ApiError(403, 'notYourConversation') : forbidden();
    }
    const wanted = [...new Set(labelIds)];
    const labels: LabelRef[] = await this.db.transaction().execute(async (tx) => {
      const found = await this.repo.findMany(tx, wanted);
      if (found.length !== wanted.length) throw new ValidationError('labelIds', 'reasonMissing', {});
      await this.repo.replace(tx, conversation.id, wanted, isoNow());
      await this.events.record(tx, 'conversation.labelled', { visitor, conversationId: conversation.id, labels: found, by: auth.uuid });
      return found;
    });
    await this.events.emit('conversation.labelled', { visitor, conversationId: conversation.id, labels, by: auth.uuid });
    return { YQToken: visitor.public_id, conversationId: conversation.id, labels };
  }
}
