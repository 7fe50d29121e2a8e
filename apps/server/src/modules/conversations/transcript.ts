import { tipText } from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/index.js';
import type { MessageRow } from '../../db/schema.js';
import { formatInZone } from '../../lib/time.js';
import type { EventHub } from '../../realtime/domain-events.js';
import type { MailSender, MailTarget } from '../mail/sender.js';
import type { MailConsent } from '../mail-consent/service.js';
import { CONSENT_TEXTS } from '../mail-consent/texts.js';
import type { VisitorRepository } from '../visitors/repository.js';
import { visitorLang } from '../visitors/views.js';
import type { ConversationRepository } from './repository.js';

/** Most messages a transcript lists; a longer conversation is cut at its start, which the mail says. */
const MAX_MESSAGES = 2000;

/** Tips written for agents about the visitor, which the visitor's own window leaves out too. */
const AGENT_ONLY_TIPS = new Set(['tip.visitorLeft', 'tip.visitorBack']);

const TEXTS = {
  zh: {
    subject: (site: string) => `您在 ${site} 的对话记录`,
    intro: (site: string) => `以下是您在 ${site} 的对话记录：`,
    you: '您',
    image: '[图片]',
    file: '[文件]',
    zone: (zone: string) => `时间为 ${zone} 时区。`,
    cut: '（对话较长，仅列出最后的消息）',
  },
  en: {
    subject: (site: string) => `Your conversation with ${site}`,
    intro: (site: string) => `Here is the transcript of your conversation with ${site}:`,
    you: 'You',
    image: '[image]',
    file: '[file]',
    zone: (zone: string) => `Times are in the ${zone} time zone.`,
    cut: '(A long conversation: only its last messages are listed.)',
  },
};

export interface TranscriptLine {
  time: string;
  /** Empty for a tip, which has no speaker. */
  who: string;
  text: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The lines of a conversation as its visitor read it, times on the site's wall clock. */
export function transcriptLines(rows: readonly MessageRow[], lang: 'zh' | 'en', timeZone: string): TranscriptLine[] {
  const t = TEXTS[lang];
  const lines: TranscriptLine[] = [];
  for (const row of rows) {
    if (row.withdrawn) continue;
    if (row.role === 'tip' && AGENT_ONLY_TIPS.has(row.msg)) continue;
    const time = formatInZone(row.created_at, timeZone);
    if (row.role === 'tip') {
      lines.push({ time, who: '', text: tipText(row.msg, row.nickname, lang) });
      continue;
    }
    const text = row.type === 'image' ? `${t.image} ${row.msg}` : row.type === 'file' ? `${t.file} ${row.msg}` : row.msg;
    lines.push({ time, who: row.role === 'user' ? t.you : row.nickname, text });
  }
  return lines;
}

/** The mail of a transcript: plain text, and HTML in which nothing a person wrote is read as markup. */
export function transcriptMail(
  lines: readonly TranscriptLine[],
  options: { lang: 'zh' | 'en'; siteName: string; timeZone: string; cut: boolean; stopUrl: string },
): { subject: string; text: string; html: string } {
  const t = TEXTS[options.lang];
  const head = [t.intro(options.siteName), ...(options.cut ? [t.cut] : [])];
  const stopLine = CONSENT_TEXTS[options.lang].stopLine(options.siteName);
  const text = [
    ...head,
    '',
    ...lines.map((line) => (line.who ? `[${line.time}] ${line.who}: ${line.text}` : `[${line.time}] — ${line.text}`)),
    '',
    t.zone(options.timeZone),
    '',
    stopLine,
    options.stopUrl,
  ].join('\n');
  const rows = lines
    .map((line) => {
      const body = line.who
        ? `<strong>${escapeHtml(line.who)}</strong>: ${escapeHtml(line.text).replaceAll('\n', '<br>')}`
        : `<em>${escapeHtml(line.text)}</em>`;
      return `<p><small style="color:#888">${escapeHtml(line.time)}</small><br>${body}</p>`;
    })
    .join('\n');
  const html = [
    `<!doctype html><html lang="${options.lang}"><body style="font-family:sans-serif">`,
    ...head.map((line) => `<p>${escapeHtml(line)}</p>`),
    rows,
    `<p><small style="color:#888">${escapeHtml(t.zone(options.timeZone))}</small></p>`,
    `<p><small style="color:#888">${escapeHtml(stopLine)} <a href="${escapeHtml(options.stopUrl)}">${escapeHtml(options.stopUrl)}</a></small></p>`,
    '</body></html>',
  ].join('\n');
  // A subject is one line: a site name cannot add headers.
  return { subject: t.subject(options.siteName.replace(/[\r\n]+/g, ' ')), text, html };
}

export interface TranscriptSettings {
  /** Whether the app settings ask for transcripts. */
  enabled: () => boolean;
  /** The SMTP server and sender; undefined while none is configured. */
  server: () => Omit<MailTarget, 'to'> | undefined;
  siteName: () => string;
  timeZone: () => string;
}

/**
 * Mails a visitor the transcript of each conversation that ends, in the visitor's language, to the
 * address they gave only once they confirmed it and while it has not asked to stop (MailConsent). The
 * mail goes out beside the end, never in its way: a failure is only logged.
 */
export class TranscriptMailer {
  constructor(
    private readonly db: Db,
    private readonly conversations: ConversationRepository,
    private readonly visitors: VisitorRepository,
    private readonly sender: MailSender,
    private readonly consent: Pick<MailConsent, 'mayMail' | 'stopLink'>,
    private readonly settings: TranscriptSettings,
    private readonly log: FastifyBaseLogger,
  ) {}

  subscribe(events: EventHub): void {
    events.on('conversation.ended', ({ visitor }) => {
      if (this.settings.enabled()) this.sender.track(this.send(visitor.id));
    });
  }

  private async send(visitorId: number): Promise<void> {
    try {
      const server = this.settings.server();
      if (!server) return;
      const visitor = await this.visitors.findById(this.db, visitorId);
      if (!visitor?.email || !(await this.consent.mayMail(visitor.id, visitor.email))) return;
      const conversation = await this.conversations.latest(this.db, visitorId);
      if (!conversation) return;
      // The visitor's latest messages, from where this conversation opened; the tip that closed it included.
      const latest = await this.conversations.listMessages(visitorId, { limit: MAX_MESSAGES + 1 });
      const rows = latest.filter((row) => row.seq >= conversation.first_seq);
      if (!rows.some((row) => row.role === 'user' || row.role === 'service' || row.role === 'robot')) return;
      const lang = visitorLang(visitor);
      const cut = rows.length > MAX_MESSAGES;
      const timeZone = this.settings.timeZone();
      const lines = transcriptLines(cut ? rows.slice(-MAX_MESSAGES) : rows, lang, timeZone);
      const stop = await this.consent.stopLink(visitor.email, lang);
      const mail = transcriptMail(lines, { lang, siteName: this.settings.siteName(), timeZone, cut, stopUrl: stop.url });
      await this.sender.send(server, { to: [visitor.email], ...mail, headers: stop.headers });
      this.log.info({ conversation: conversation.id }, 'transcript mailed');
    } catch (error) {
      this.log.warn({ err: error, visitor: visitorId }, 'transcript mail failed');
    }
  }
}
