import type { SettingsOf } from '@parley/protocol';
import { createTransport } from 'nodemailer';
import type { MailConfig } from '../../config.js';
import { UnderWay } from '../../lib/under-way.js';

/*
 * The SMTP side of every mail the server sends (leave-messages, notices to agents, transcripts and their
 * confirmations): where mails go, and the one sender that sends them.
 */

/** Longest a mail may take, connection included; past it the mail is given up (and logged). */
export const MAIL_TIMEOUT_MS = 15_000;

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
  const to = page && page.to.length > 0 ? page.to : mail.letterTo;
  const server = mailServer(mail, page);
  if (!server || to.length === 0) return undefined;
  return { ...server, from: server.from || to[0] || '', to };
}

/** The SMTP server mails go through and their sender ('' when neither names one); undefined when none is configured. */
export function mailServer(mail: MailConfig, page: SettingsOf<'softwareSetting'>['smtp']): Omit<MailTarget, 'to'> | undefined {
  if (page) {
    const auth = page.user ? { auth: { user: page.user, pass: page.password } } : {};
    return { smtp: { host: page.host, port: page.port, secure: page.secure, ...auth }, from: page.from };
  }
  if (!mail.smtpUrl) return undefined;
  return { smtp: mail.smtpUrl, from: mail.from ?? '' };
}

type Transport = ReturnType<typeof createTransport>;

/** One mail to send: plain text always, HTML beside it when given. */
export interface OutgoingMail {
  to: string[];
  subject: string;
  text: string;
  html?: string;
  /** Extra headers, e.g. List-Unsubscribe (RFC 2369, one-click per RFC 8058). */
  headers?: Record<string, string>;
}

/**
 * Sends mails beside the actions that cause them, never in their way: each is bounded by MAIL_TIMEOUT_MS,
 * and closing waits for those under way. The SMTP connection is kept while the server stays the same.
 */
export class MailSender {
  private readonly pending = new UnderWay();
  /** The transport of the last server, kept while the server stays the same. */
  private current: { key: string; transport: Transport } | undefined;

  private transportFor(server: MailTarget['smtp']): Transport {
    const key = JSON.stringify(server);
    if (this.current?.key === key) return this.current.transport;
    this.current?.transport.close();
    const timeouts = { connectionTimeout: MAIL_TIMEOUT_MS, greetingTimeout: MAIL_TIMEOUT_MS, socketTimeout: MAIL_TIMEOUT_MS };
    const transport = createTransport(typeof server === 'string' ? { url: server, ...timeouts } : { ...server, ...timeouts });
    this.current = { key, transport };
    return transport;
  }

  /** Rejects when the mail is refused or not sent within MAIL_TIMEOUT_MS. */
  async send(server: Omit<MailTarget, 'to'>, mail: OutgoingMail): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`mail not sent within ${MAIL_TIMEOUT_MS} ms`)), MAIL_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.transportFor(server.smtp).sendMail({ from: server.from, ...mail }), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs `work` beside the caller; close() waits for it. */
  track(work: Promise<unknown>): void {
    this.pending.add(work);
  }

  /** Lets mails under way finish (each is bounded by its timeout), then closes the connection. */
  async close(): Promise<void> {
    await this.pending.settled();
    this.current?.transport.close();
  }
}
