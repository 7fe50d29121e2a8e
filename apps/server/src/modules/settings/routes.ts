import { type Endpoint, SETTINGS_PAGES, type SettingsOf, type SettingsPage } from '@parley/protocol';
import type { FastifyRequest } from 'fastify';
import { type AuthContext, auditActor } from '../../lib/caller.js';
import type { Access, DefineRoute } from '../../lib/http.js';
import type { SettingsService } from './service.js';

/** Pages every agent's workbench reads (quick replies, the team's notification defaults); only Admin edits them. */
const SHARED_PAGES: readonly SettingsPage[] = ['quickReply', 'desktopSetting'];

interface Context {
  body: unknown;
  auth: AuthContext;
  req: FastifyRequest;
}

/** Read-only values a page answers beside its stored ones (the WeChat page's server URLs and status). */
export type PageExtras = Partial<Record<SettingsPage, (answer: unknown) => Promise<unknown>>>;

export function settingsRoutes(route: DefineRoute, settings: SettingsService, extras: PageExtras = {}): void {
  // Each key is a row of the table (`settingsEndpoints`) for every page; the compiler cannot follow a key
  // built from a loop variable, so the page's schema (the row's body) and SettingsOf<P> carry the typing.
  const declare = route as (key: Endpoint, def: { access: Exclude<Access, 'public'>; handler(ctx: Context): unknown }) => void;
  for (const page of SETTINGS_PAGES) {
    declare(`GET /api/settings/${page}`, {
      access: SHARED_PAGES.includes(page) ? 'agent' : 'admin',
      handler: () => withExtras(page, settings.get(page)),
    });
    declare(`POST /api/settings/${page}`, {
      access: 'admin',
      handler: async ({ body, auth, req }) =>
        withExtras(page, await settings.save(page, body as SettingsOf<typeof page>, auth.uuid, auditActor(auth, req))),
    });
  }
  async function withExtras(page: SettingsPage, answer: unknown): Promise<unknown> {
    const extra = extras[page];
    return extra ? extra(answer) : answer;
  }
  route('GET /api/site', {
    access: 'public',
    handler: () => {
      const { siteName, logo } = settings.current('softwareSetting');
      return { siteName, logo };
    },
  });
}
