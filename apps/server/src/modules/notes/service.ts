import { mentionedNames, type Note } from '@parley/protocol';
import { isUniqueViolation } from '../../db/errors.js';
import type { VisitorRow } from '../../db/schema.js';
import { type AuthContext, isSupervisor } from '../../lib/caller.js';
import { ApiError, conflict, notFound } from '../../lib/errors.js';
import { isoNow } from '../../lib/time.js';
import type { EventHub } from '../../realtime/domain-events.js';
import type { ConversationRepository } from '../conversations/repository.js';
import type { Notices } from '../notices/service.js';
import type { VisitorRepository } from '../visitors/repository.js';
import { visitorNickname } from '../visitors/views.js';
import type { NoteRepository, NoteRow } from './repository.js';

/** The workbench shows a visitor's newest notes, up to this many, beside its messages. */
const LISTED_NOTES = 200;

export function toNote(row: NoteRow, publicId: string): Note {
  return {
    id: row.id,
    YQToken: publicId,
    conversationId: row.conversation_id,
    onlyID: row.only_id,
    msg: row.msg,
    serviceID: row.service_id,
    nickname: row.nickname,
    time: row.created_at,
    afterSeq: row.after_seq,
    mentions: row.mentions,
  };
}

/**
 * Internal notes: written by a conversation's agent or a supervisor, told to the agents of the
 * conversation and to the agents a note mentions, never to the visitor (they are not messages).
 */
export class NoteService {
  constructor(
    private readonly repo: NoteRepository,
    private readonly visitorRepo: VisitorRepository,
    private readonly conversationRepo: ConversationRepository,
    private readonly notices: Notices,
    private readonly events: EventHub,
    /** Whoever may read the visitor's messages reads its notes: the conversations' one rule (404/403). */
    private readonly readable: (auth: AuthContext, publicId: string) => Promise<VisitorRow>,
  ) {}

  private get db() {
    return this.repo.db;
  }

  async list(auth: AuthContext, publicId: string): Promise<{ list: Note[] }> {
    const visitor = await this.readable(auth, publicId);
    const rows = await this.repo.ofVisitor(visitor.id, LISTED_NOTES);
    return { list: rows.map((row) => toNote(row, publicId)) };
  }

  /** Adds a note to the visitor's latest conversation; idempotent on onlyID (its author's resend answers the stored note). */
  async add(auth: AuthContext, input: { YQToken: string; msg: string; onlyID: string }): Promise<Note> {
    const visitor = await this.visitorRepo.findByPublicId(this.db, input.YQToken);
    if (!visitor) throw notFound();
    const resent = await this.repo.findByOnlyId(visitor.id, input.onlyID);
    if (resent) return this.ownResend(auth, resent, visitor.public_id);
    // The conversation's agent (open or ended, the last one to hold it) or a supervisor; nobody else.
    if (visitor.service_id !== auth.uuid && !isSupervisor(auth)) throw new ApiError(403, 'notYourConversation');
    const conversation = await this.conversationRepo.latest(this.db, visitor.id);
    if (!conversation) throw conflict('noConversationToNote');
    const named = await this.repo.agentsNamed(mentionedNames(input.msg));
    // Mentioning oneself tells nobody.
    const mentioned = named.filter((agent) => agent.uuid !== auth.uuid);
    let row: NoteRow;
    try {
      row = await this.db.transaction().execute(async (tx) => {
        const stored = await this.repo.insert(
          tx,
          {
            visitor_id: visitor.id,
            conversation_id: conversation.id,
            only_id: input.onlyID,
            service_id: auth.uuid,
            nickname: auth.nickname,
            msg: input.msg,
            after_seq: visitor.last_seq,
            created_at: isoNow(),
          },
          mentioned.map((agent) => agent.uuid),
        );
        for (const agent of mentioned) {
          await this.notices.mentioned(tx, agent.id, {
            name: auth.nickname,
            visitor: visitorNickname(visitor),
            conversation: conversation.id,
          });
        }
        const note = toNote(stored, visitor.public_id);
        await this.events.record(tx, 'note.created', { visitor, note, visitorName: visitorNickname(visitor) });
        return stored;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const again = await this.repo.findByOnlyId(visitor.id, input.onlyID);
      if (!again) throw error;
      return this.ownResend(auth, again, visitor.public_id);
    }
    const note = toNote(row, visitor.public_id);
    await this.events.emit('note.created', { visitor, note, visitorName: visitorNickname(visitor) });
    return note;
  }

  private ownResend(auth: AuthContext, row: NoteRow, publicId: string): Note {
    if (row.service_id !== auth.uuid) throw conflict('onlyIdTaken');
    return toNote(row, publicId);
  }
}
