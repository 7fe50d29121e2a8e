import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type Lang, pickLang } from '../../lib/i18n.js';
import type { LinkState, MailConsent } from './service.js';
import { CONSENT_TEXTS } from './texts.js';

/** A link's token as `newToken` makes them: anything else is no link of ours. */
const token = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

/** The largest form these pages take: a token and a mail program's one-click field. */
const FORM_LIMIT = 1024;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The token of a link, from its query or from the form that the link's page posts. */
function tokenOf(req: FastifyRequest): string | undefined {
  const fromQuery = (req.query as Record<string, unknown>).token;
  const fromForm = typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>).token : undefined;
  const parsed = token.safeParse(fromQuery ?? fromForm);
  return parsed.success ? parsed.data : undefined;
}

/**
 * A page of its own: nothing here loads anything, runs a script or is kept by a cache; the links carry
 * tokens, which no Referer passes on (helmet's referrer policy).
 */
function page(reply: FastifyReply, status: number, lang: Lang, title: string, text: string, form?: { token: string; button: string }) {
  // The form posts back to the page's own address (no action), wherever a proxy mounts the server.
  const body = form
    ? `<form method="post"><input type="hidden" name="token" value="${escapeHtml(form.token)}"><button type="submit">${escapeHtml(form.button)}</button></form>`
    : '';
  const html = [
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`,
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222;line-height:1.6}',
    'button{font:inherit;padding:.5rem 1.5rem;border:0;border-radius:6px;background:#1677ff;color:#fff;cursor:pointer}</style></head>',
    `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${body}</main></body></html>`,
  ].join('');
  return reply.status(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
}

/**
 * The links of transcript mails: `/mail/confirm` proves an address, `/mail/stop` stops all mail to one.
 * Opening a link only shows its page; the page's button (or a mail program's one-click POST, RFC 8058)
 * acts, so a mail scanner that follows every link confirms and stops nothing.
 */
export async function mailConsentPages(app: FastifyInstance, consent: MailConsent, siteLanguage: Lang): Promise<void> {
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    const langFor = (req: FastifyRequest, state: LinkState | undefined): Lang =>
      state?.lang ?? (req.headers['accept-language'] ? pickLang(req.headers['accept-language']) : siteLanguage);

    const invalid = (req: FastifyRequest, reply: FastifyReply, state?: LinkState) => {
      const lang = langFor(req, state);
      const t = CONSENT_TEXTS[lang];
      return page(reply, state ? 410 : 404, lang, t.pageInvalidTitle, t.pageInvalidText);
    };

    scope.get('/mail/confirm', async (req, reply) => {
      const value = tokenOf(req);
      const state = value ? await consent.confirmation(value) : undefined;
      if (!value || !state?.valid) return invalid(req, reply, state);
      const lang = langFor(req, state);
      const t = CONSENT_TEXTS[lang];
      return page(reply, 200, lang, t.pageConfirmTitle, t.pageConfirmText(consent.siteName()), {
        token: value,
        button: t.pageConfirmButton,
      });
    });
    scope.post('/mail/confirm', { bodyLimit: FORM_LIMIT }, async (req, reply) => {
      const value = tokenOf(req);
      const state = value ? await consent.confirm(value) : undefined;
      if (!state?.valid) return invalid(req, reply, state);
      const lang = langFor(req, state);
      const t = CONSENT_TEXTS[lang];
      return page(reply, 200, lang, t.pageConfirmedTitle, t.pageConfirmedText(consent.siteName()));
    });

    scope.get('/mail/stop', async (req, reply) => {
      const value = tokenOf(req);
      const state = value ? await consent.stopState(value) : undefined;
      if (!value || !state?.valid) return invalid(req, reply, state);
      const lang = langFor(req, state);
      const t = CONSENT_TEXTS[lang];
      return page(reply, 200, lang, t.pageStopTitle, t.pageStopText(consent.siteName()), {
        token: value,
        button: t.pageStopButton,
      });
    });
    scope.post('/mail/stop', { bodyLimit: FORM_LIMIT }, async (req, reply) => {
      const value = tokenOf(req);
      const state = value ? await consent.stop(value) : undefined;
      if (!state?.valid) return invalid(req, reply, state);
      const lang = langFor(req, state);
      const t = CONSENT_TEXTS[lang];
      return page(reply, 200, lang, t.pageStoppedTitle, t.pageStoppedText(consent.siteName()));
    });
  });
}
