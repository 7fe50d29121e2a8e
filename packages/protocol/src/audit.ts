import { z } from 'zod';
import { type ListData, pageQuery } from './api.js';
import { endpointGroup, returns } from './endpoint.js';
import { line } from './strings.js';

/**
 * What the audit log records (CONTRACT §15), dotted lowercase `<area>.<verb>`. The list is the wire's:
 * the console names each action from it and the filter offers them.
 */
export const AUDIT_ACTIONS = [
  'agent.create',
  'agent.update',
  'agent.delete',
  'agent.enable',
  'agent.disable',
  'agent.resetPassword',
  'role.create',
  'role.update',
  'role.delete',
  'settings.update',
  'robot.settings',
  'robot.pair.create',
  'robot.pair.update',
  'robot.pair.delete',
  'robot.pair.import',
  'robot.question.dismiss',
  'link.create',
  'link.update',
  'link.delete',
  'friendly.create',
  'friendly.update',
  'friendly.delete',
  'label.create',
  'label.update',
  'label.delete',
  'visitor.erase',
  'password.change',
  'mfa.enable',
  'mfa.disable',
  'session.revoke',
  'token.create',
  'token.revoke',
  /** A write made with an API token: which call, under which token. */
  'token.use',
  'webhook.create',
  'webhook.update',
  'webhook.delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The actor of a change no person made (a migration, a scheduled job). */
export const SYSTEM_ACTOR = 'system';

/** One row of the audit log. `detail` is the change's particulars; secret values never appear in it. */
export interface AuditEntry {
  id: number;
  /** The acting username as it was at the time, or `system`. */
  actor: string;
  action: string;
  /** What was changed, e.g. `agent:alice`, `settings:softwareSetting`, `role:3`. */
  target: string;
  detail: Record<string, unknown>;
  ip: string;
  createdAt: string;
}

/** A changed settings page's detail: the page and the dotted paths of the fields whose value changed. */
export interface SettingsAuditDetail {
  page: string;
  fields: string[];
}

/**
 * Filters of the audit log. `actor` matches part of the username, `action` an action or an area prefix
 * (`robot` matches `robot.settings` and `robot.pair.*`); `from`/`to` are days in the site's time zone (or
 * instants), both ends included. `format=csv` answers every matching row as a CSV file instead of a page.
 */
export const auditListQuery = pageQuery.extend({
  actor: line(z.string().trim().max(64)).optional(),
  action: z
    .string()
    .trim()
    .max(64)
    .regex(/^[a-z]*(\.[a-zA-Z]+)*$/)
    .optional(),
  from: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
  to: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
  format: z.enum(['json', 'csv']).default('json'),
});

export const auditEndpoints = endpointGroup({
  /** Role Admin only. With `format=csv` the whole filtered log as CSV (`raw`), else one page. */
  'GET /api/audit/getList': { query: auditListQuery, response: returns<ListData<AuditEntry>>() },
});
