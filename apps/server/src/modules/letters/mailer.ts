import type { Letter, SettingsOf } from '@parley/protocol';
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

/** Where mails go: an SMTP URL or host settings, the sender and the recipients. */
export interface MailTarget {
  smtp: string | { host: string; port: number; secure: boolean; auth?: { user: string; pass: string } };
  from: string;
  to: string[];
}

/**
 * The SMTP of the software settings page when it names one, the server's configuration otherwise. The
 * page's recipients, or the configuration's when the page lists none; no recipients means no mail.
 */
export function mailTarget(mail: MailConfig, page: SettingsOf<'softwareSetting'>['smtp']): MailTarget | undefined {
  if (page) {
    const to = page.to.length > 0 ? page.to : mail.letterTo;
    if (to.length === 0) return undefined;
    const auth = page.user ? { auth: { user: page.user, pass: page.password } } : {};
    return { smtp: { host: page.host, port: page.port, secure: page.secure, ...auth }, from: page.from, to };
  }
  if (!mail.smtpUrl || mail.letterTo.length === 0) return undefined;
  return { smtp: mail.smtpUrl, from: mail.from ?? mail.letterTo[0] ?? '', to: mail.letterTo };
}

type Transport = ReturnType<typeof createTransport>;

/**
 * Mails each new leave-message to the configured addresses. Sending runs beside the request that stored
 * the letter, never in its way: a slow or failing mail server is logged, and the letter stays stored.
 * The target is read at each mail, so a change of the settings applies to the next one.
 */
export class LetterMailer {
  private readonly pending = new Set<Promise<void>>();
  /** The transport of the last target, kept while the target stays the same. */
  private current: { key: string; transport: Transport } | undefined;

  constructor(
    private readonly target: () => MailTarget | undefined,
    private readonly language: 'zh' | 'en',
    private readonly log: FastifyBaseLogger,
  ) {}

  private transportFor(target: MailTarget): Transport {
    const key = JSON.stringify(target.smtp);
    if (this.current?.key === key) return this.current.transport;
    this.current?.transport.close();
    const timeouts = { connectionTimeout: MAIL_TIMEOUT_MS, greetingTimeout: MAIL_TIMEOUT_MS, socketTimeout: MAIL_TIMEOUT_MS };
    const transport = createTransport(
      typeof target.smtp === 'string' ? { url: target.smtp, ...timeouts } : { ...target.smtp, ...timeouts },
    );
    this.current = { key, transport };
    return transport;
  }

  subscribe(events: EventHub): void {
    events.on('letter.created', ({ letter }) => {
      const sending = this.send(letter);
      this.pending.add(sending);
      void sending.finally(() => this.pending.delete(sending));
    });
  }

  private async send(letter: Letter): Promise<void> {
    const target = this.target();
    if (!target) return;
    const { subject, text } = letterMail(letter, this.language);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`mail not sent within ${MAIL_TIMEOUT_MS} ms`)), MAIL_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.transportFor(target).sendMail({ from: target.from, to: target.to, subject, text }), timeout]);
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
    this.current?.transport.close();
  }
}
