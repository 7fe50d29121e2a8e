import { hash } from 'node:crypto';
import type { TranscriptOffer } from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Lang } from '../../lib/i18n.js';
import { hashToken, newToken } from '../../lib/tokens.js';
import type { MailSender, MailTarget } from '../mail/sender.js';
import type { ConfirmationRow, MailConsentRepository } from './repository.js';
import { CONSENT_TEXTS } from './texts.js';

/**
 * Confirmation mails one address, one visitor and one requesting address may cause within a day. Past
 * them a request sends nothing and says so: a stranger typing someone's address can make at most three
 * mails land there a day, each of which only asks, and offers to stop everything.
 */
export const CONFIRMATION_LIMITS = { perAddress: 3, perVisitor: 3, perRequester: 10, windowMs: 24 * 3600_000 };

export interface MailConsentDeps {
  /** Whether the app settings ask for transcripts. */
  enabled: () => boolean;
  /** The SMTP server and sender; undefined while none is configured. */
  server: () => Omit<MailTarget, 'to'> | undefined;
  siteName: () => string;
  /** PUBLIC_URL, or the address the server listens on. */
  baseUrl: () => string;
  confirmSeconds: number;
  now: () => number;
}

/** The address as an index: only its hash is stored (migration 024). */
export function addressHash(email: string): string {
  return hash('sha256', email.trim().toLowerCase(), 'hex');
}

/** A link's page: what it is about, in whose language. */
export interface LinkState {
  valid: boolean;
  lang: Lang | undefined;
}

/**
 * Transcripts go only to an address its visitor proved: giving one mails a single-use confirmation link,
 * and only a visitor who opened it gets transcripts there. Every mail carries a link that stops all mail
 * to its address, for good.
 */
export class MailConsent {
  constructor(
    private readonly repo: MailConsentRepository,
    private readonly sender: MailSender,
    private readonly deps: MailConsentDeps,
    private readonly log: FastifyBaseLogger,
  ) {}

  private isoNow(): string {
    return new Date(this.deps.now()).toISOString();
  }

  /**
   * The visitor gave `email`: mails it a confirmation link unless this visitor already confirmed it or a
   * limit is reached. An address that asked to stop is answered as if the link went out (nothing tells a
   * stranger that it did), and gets nothing.
   */
  async offer(visitorId: number, email: string, lang: Lang, ip: string): Promise<TranscriptOffer> {
    const server = this.deps.server();
    if (!this.deps.enabled() || !server) return 'none';
    const emailHash = addressHash(email);
    const stopped = await this.repo.isStopped(emailHash);
    if (await this.repo.isConfirmed(visitorId, emailHash)) return stopped ? 'none' : 'confirmed';
    const now = this.deps.now();
    const token = newToken();
    const limited = await this.repo.db.transaction().execute(async (tx) => {
      await this.repo.lockRequests(tx);
      const since = new Date(now - CONFIRMATION_LIMITS.windowMs).toISOString();
      const asked = await this.repo.requestsSince(tx, since, { emailHash, visitorId, ip });
      if (
        asked.address >= CONFIRMATION_LIMITS.perAddress ||
        asked.visitor >= CONFIRMATION_LIMITS.perVisitor ||
        asked.requester >= CONFIRMATION_LIMITS.perRequester
      )
        return true;
      await this.repo.insertConfirmation(tx, {
        visitor_id: visitorId,
        email_hash: emailHash,
        token_hash: hashToken(token),
        ip,
        lang,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + this.deps.confirmSeconds * 1000).toISOString(),
      });
      return false;
    });
    if (limited) {
      this.log.info({ visitor: visitorId }, 'transcript address confirmation limited');
      return 'limited';
    }
    if (!stopped) this.sender.track(this.sendConfirmation(server, email, token, lang));
    return 'sent';
  }

  /** Whether a transcript may go to `email` for this visitor: confirmed by them, and not stopped since. */
  async mayMail(visitorId: number, email: string): Promise<boolean> {
    const emailHash = addressHash(email);
    return (await this.repo.isConfirmed(visitorId, emailHash)) && !(await this.repo.isStopped(emailHash));
  }

  /**
   * A fresh unsubscribe link for one mail to `email`: the URL for the mail's text and the headers that
   * let a mail program offer it as one click (RFC 2369 and RFC 8058).
   */
  async stopLink(email: string, lang: Lang): Promise<{ url: string; headers: Record<string, string> }> {
    const token = newToken();
    await this.repo.insertStopToken({ token_hash: hashToken(token), email_hash: addressHash(email), lang, created_at: this.isoNow() });
    const url = `${this.deps.baseUrl()}/mail/stop?token=${token}`;
    return { url, headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } };
  }

  private usable(row: ConfirmationRow | undefined): row is ConfirmationRow {
    return row !== undefined && row.confirmed_at === null && row.expires_at > this.isoNow();
  }

  /** What the page of a confirmation link shows, before anything is done. */
  async confirmation(token: string): Promise<LinkState> {
    const row = await this.repo.findConfirmation(hashToken(token));
    return { valid: this.usable(row), lang: langOf(row?.lang) };
  }

  /** Uses a confirmation link: once, before it expires. */
  async confirm(token: string): Promise<LinkState> {
    const row = await this.repo.findConfirmation(hashToken(token));
    const valid = this.usable(row) && (await this.repo.useConfirmation(row.id, this.isoNow()));
    return { valid, lang: langOf(row?.lang) };
  }

  async stopState(token: string): Promise<LinkState> {
    const row = await this.repo.findStopToken(hashToken(token));
    return { valid: row !== undefined, lang: langOf(row?.lang) };
  }

  /** Stops every mail to the link's address, for good. Opening it again changes nothing. */
  async stop(token: string): Promise<LinkState> {
    const row = await this.repo.findStopToken(hashToken(token));
    if (row) await this.repo.stop(row.email_hash, this.isoNow());
    return { valid: row !== undefined, lang: langOf(row?.lang) };
  }

  siteName(): string {
    return this.deps.siteName();
  }

  private async sendConfirmation(server: Omit<MailTarget, 'to'>, email: string, token: string, lang: Lang): Promise<void> {
    try {
      await this.repo.pruneUnused(new Date(this.deps.now() - 2 * CONFIRMATION_LIMITS.windowMs).toISOString());
      const t = CONSENT_TEXTS[lang];
      // A subject is one line: a site name cannot add headers.
      const site = this.deps.siteName().replace(/[\r\n]+/g, ' ');
      const link = `${this.deps.baseUrl()}/mail/confirm?token=${token}`;
      const stop = await this.stopLink(email, lang);
      const seconds = this.deps.confirmSeconds;
      const expiry =
        seconds >= 3600
          ? t.confirmExpiry(Math.floor(seconds / 3600), 'hours')
          : t.confirmExpiry(Math.max(1, Math.floor(seconds / 60)), 'minutes');
      const text = [t.confirmIntro(site), '', t.confirmAction, link, '', expiry, t.confirmNotYou, '', t.stopLine(site), stop.url].join(
        '\n',
      );
      await this.sender.send(server, { to: [email], subject: t.confirmSubject(site), text, headers: stop.headers });
      this.log.info('transcript address confirmation mailed');
    } catch (error) {
      this.log.warn({ err: error }, 'transcript address confirmation mail failed');
    }
  }
}

function langOf(value: string | undefined): Lang | undefined {
  return value === 'zh' || value === 'en' ? value : undefined;
}
