import type { Letter } from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { createTransport } from 'nodemailer';
import type { MailConfig } from '../../config.js';
import type { EventHub } from '../../lib/events.js';

/** Longest a mail may take, connection included; past it the mail is given up (and logged). */
export const MAIL_TIMEOUT_MS = 15_000;

const TEXTS = {
  zh: {
    subject: (name: string) => `新留言：${name}`,
    intro: '访客留下了一条留言：',
    name: '姓名',
    phone: '电话',
    email: '邮箱',
    time: '时间',
  },
  en: {
    subject: (name: string) => `New leave-message from ${name}`,
    intro: 'A visitor left a message:',
    name: 'Name',
    phone: 'Phone',
    email: 'Email',
    time: 'Time',
  },
};

/** The mail of a letter, as plain text: nothing in it is ever read as HTML. */
export function letterMail(letter: Letter, language: 'zh' | 'en'): { subject: string; text: string } {
  const t = TEXTS[language];
  const lines = [
    t.intro,
    '',
    `${t.name}: ${letter.name}`,
    ...(letter.phone ? [`${t.phone}: ${letter.phone}`] : []),
    ...(letter.email ? [`${t.email}: ${letter.email}`] : []),
    `${t.time}: ${letter.createdAt}`,
    '',
    letter.content,
  ];
  // A subject is one line: a name cannot add headers.
  return { subject: t.subject(letter.name.replace(/[\r\n]+/g, ' ')), text: lines.join('\n') };
}

/**
 * Mails each new leave-message to the configured addresses. Sending runs beside the request that stored
 * the letter, never in its way: a slow or failing mail server is logged, and the letter stays stored.
 */
export class LetterMailer {
  private readonly pending = new Set<Promise<void>>();
  private readonly transport: ReturnType<typeof createTransport>;

  private constructor(
    smtpUrl: string,
    private readonly from: string,
    private readonly to: string[],
    private readonly language: 'zh' | 'en',
    private readonly log: FastifyBaseLogger,
  ) {
    this.transport = createTransport({
      url: smtpUrl,
      connectionTimeout: MAIL_TIMEOUT_MS,
      greetingTimeout: MAIL_TIMEOUT_MS,
      socketTimeout: MAIL_TIMEOUT_MS,
    });
  }

  /** A mailer when SMTP and recipients are configured; none otherwise. */
  static fromConfig(mail: MailConfig, language: 'zh' | 'en', log: FastifyBaseLogger): LetterMailer | undefined {
    if (!mail.smtpUrl || mail.letterTo.length === 0) return undefined;
    const from = mail.from ?? mail.letterTo[0] ?? '';
    return new LetterMailer(mail.smtpUrl, from, mail.letterTo, language, log);
  }

  subscribe(events: EventHub): void {
    events.on('letter.created', ({ letter }) => {
      const sending = this.send(letter);
      this.pending.add(sending);
      void sending.finally(() => this.pending.delete(sending));
    });
  }

  private async send(letter: Letter): Promise<void> {
    const { subject, text } = letterMail(letter, this.language);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`mail not sent within ${MAIL_TIMEOUT_MS} ms`)), MAIL_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.transport.sendMail({ from: this.from, to: this.to, subject, text }), timeout]);
      this.log.info({ letter: letter.id }, 'leave-message mailed');
    } catch (error) {
      this.log.warn({ err: error, letter: letter.id }, 'leave-message mail failed');
    } finally {
      clearTimeout(timer);
    }
  }

  /** Lets mails under way finish (each is bounded by its timeout), then closes the connection. */
  async close(): Promise<void> {
    await Promise.allSettled(this.pending);
    this.transport.close();
  }
}
