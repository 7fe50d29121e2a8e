import { WEBHOOK_EVENTS, type WebhookEvent } from '@parley/protocol';
import type { VisitorRow } from '../../db/schema.js';
import { attributesOf } from '../visitors/views.js';

/** The visitor's columns webhookVisitor reads: what the delivery process selects for each message it tells. */
export const WEBHOOK_VISITOR_COLUMNS = [
  'public_id',
  'name',
  'phone',
  'email',
  'channel',
  'region',
  'device',
  'browser',
  'first_url',
  'referrer',
  'created_at',
  'user_id',
  'attributes',
] as const satisfies readonly (keyof VisitorRow)[];

/**
 * A visitor as a receiver sees it: its public id as `YQToken` (CONTRACT §5: never the visitor's
 * credential) and what the history API shows of it.
 */
export function webhookVisitor(row: Pick<VisitorRow, (typeof WEBHOOK_VISITOR_COLUMNS)[number]>) {
  return {
    YQToken: row.public_id,
    name: row.name,
    phone: row.phone,
    email: row.email,
    channel: row.channel,
    region: row.region,
    device: row.device,
    browser: row.browser,
    firstUrl: row.first_url,
    referrer: row.referrer,
    createdAt: row.created_at,
    userId: row.user_id ?? null,
    attributes: attributesOf(row),
  };
}

/** The envelope every attempt of an event sends (CONTRACT §12), the same bytes at every retry. */
export function envelopeBody(eventId: string, type: string, createdAt: string, data: unknown): string {
  return JSON.stringify({ id: eventId, type, createdAt, data });
}

/** The events a webhook takes, from its stored JSON list (unknown names left out). */
export function eventsOf(stored: string): WebhookEvent[] {
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed)
      ? parsed.filter((event): event is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(event))
      : [];
  } catch {
    return [];
  }
}
