import { ADMIN_ROLE, can, type Notice } from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { DbOrTx } from '../../db/index.js';
import { type Lang, type MessageKey, type MessageParams, translate } from '../../lib/i18n.js';
import { isoBefore } from '../../lib/time.js';
import type { MailSender, MailTarget } from '../mail/sender.js';
import type { NoticeRepository } from './repository.js';

/** What a stored notice says: its title and text (translation keys) and where it leads in the console. */
const KINDS = {
  passwordChanged: { title: 'noticePasswordChangedTitle', body: 'noticePasswordChanged', url: '#/personal/personal' },
  passwordReset: { title: 'noticePasswordResetTitle', body: 'noticePasswordReset', url: '#/personal/personal' },
  mfaEnabled: { title: 'noticeMfaEnabledTitle', body: 'noticeMfaEnabled', url: '#/personal/personal' },
  mfaDisabled: { title: 'noticeMfaDisabledTitle', body: 'noticeMfaDisabled', url: '#/personal/personal' },
  accountDelayed: { title: 'noticeAccountDelayedTitle', body: 'noticeAccountDelayed', url: '#/service/record' },
  webhookDisabled: { title: 'noticeWebhookDisabledTitle', body: 'noticeWebhookDisabled', url: '#/access/access' },
  // The conversation's id is appended from the notice's parameters (see `urlOf`).
  mentioned: { title: 'noticeMentionedTitle', body: 'noticeMentioned', url: '#/history/historyDetail?id=' },
} as const satisfies Record<string, { title: MessageKey; body: MessageKey; url: string }>;

/** Where a notice leads: a mention opens its conversation's history page. */
function urlOf(kind: NoticeKind, params: MessageParams): string {
  return kind === 'mentioned' ? `${KINDS.mentioned.url}${Number(params.conversation) || 0}` : KINDS[kind].url;
}

export type NoticeKind = keyof typeof KINDS;
/** The notices an agent gets about their own account, each also mailed when mail is set up. */
export type AccountNoticeKind = 'passwordChanged' | 'passwordReset' | 'mfaEnabled' | 'mfaDisabled';

/** How long a stored notice stays in the list, and the most the list shows. */
const KEPT_DAYS = 30;
const LISTED = 20;

export interface NoticeMail {
  sender: MailSender;
  /** The SMTP server, or undefined while none is configured (then nothing is mailed). */
  server(): Omit<MailTarget, 'to'> | undefined;
  siteName(): string;
  language: Lang;
}

function isKind(kind: string): kind is NoticeKind {
  return Object.hasOwn(KINDS, kind);
}

function parseParams(text: string): MessageParams {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string | number] => ['string', 'number'].includes(typeof entry[1])),
    );
  } catch {
    return {};
  }
}

/**
 * Stored notices: written in the transaction of the change they tell of, listed in the console's notice
 * list in the reader's language. An agent's notices about their own account are mailed too, after the
 * change is committed, when the agent gave an address and an SMTP server is configured.
 */
export class Notices {
  constructor(
    private readonly repo: NoticeRepository,
    private readonly mail: NoticeMail,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => number = Date.now,
  ) {}

  async toAgent(tx: DbOrTx, agentId: number, kind: AccountNoticeKind, params: MessageParams): Promise<void> {
    await this.insert(tx, agentId, kind, params);
  }

  /** A note mentions this agent: `name` wrote it, on `visitor`'s conversation `conversation`. */
  async mentioned(tx: DbOrTx, agentId: number, params: { name: string; visitor: string; conversation: number }): Promise<void> {
    await this.insert(tx, agentId, 'mentioned', params);
  }

  async toAdmins(tx: DbOrTx, kind: NoticeKind, params: MessageParams): Promise<void> {
    await this.insert(tx, null, kind, params);
  }

  private async insert(tx: DbOrTx, agentId: number | null, kind: NoticeKind, params: MessageParams): Promise<void> {
    await this.repo.insert(tx, {
      agent_id: agentId,
      audience: agentId === null ? 'admins' : 'agent',
      kind,
      params: JSON.stringify(params),
      created_at: new Date(this.now()).toISOString(),
    });
  }

  /** Mails an account notice beside the caller (never in its way); nothing when no address or no server. */
  mailTo(email: string, kind: AccountNoticeKind, params: MessageParams): void {
    const server = this.mail.server();
    if (!email || !server) return;
    const { title, body } = KINDS[kind];
    const lang = this.mail.language;
    const site = this.mail.siteName();
    const text = `${translate(lang, body, params)}\n\n— ${site}`;
    const subject = `[${site.replace(/[\r\n]+/g, ' ')}] ${translate(lang, title)}`;
    this.mail.sender.track(
      this.mail.sender.send(server, { to: [email], subject, text }).then(
        () => this.log.info({ kind }, 'account notice mailed'),
        (error: unknown) => this.log.warn({ err: error, kind }, 'account notice mail failed'),
      ),
    );
  }

  async list(holder: { agentId: number; roles: string[]; permissions: string[] }, lang: Lang): Promise<Notice[]> {
    const rows = await this.repo.listFor(holder.agentId, can(holder, [ADMIN_ROLE]), isoBefore(KEPT_DAYS * 86_400, this.now()), LISTED);
    return rows.flatMap((row) => {
      if (!isKind(row.kind)) return [];
      const { title, body } = KINDS[row.kind];
      const params = parseParams(row.params);
      return [
        {
          id: `notice-${row.id}`,
          kind:
            row.kind === 'mentioned' ? ('mention' as const) : row.kind === 'webhookDisabled' ? ('system' as const) : ('security' as const),
          title: translate(lang, title),
          notice: translate(lang, body, params),
          url: urlOf(row.kind, params),
          created_at: row.created_at,
        },
      ];
    });
  }

  async prune(): Promise<void> {
    await this.repo.deleteBefore(isoBefore(KEPT_DAYS * 86_400, this.now()));
  }
}
