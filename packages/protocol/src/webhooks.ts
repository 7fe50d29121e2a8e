import { z } from 'zod';
import { deleteBody } from './api.js';
import { endpointGroup, returns } from './endpoint.js';
import { line } from './strings.js';

/**
 * What a webhook may subscribe to (CONTRACT §12). `note.created` and `conversation.labelled` go beyond the
 * contract's list: an internal note reaches a receiver only when it subscribes to note events.
 */
export const WEBHOOK_EVENTS = [
  'conversation.created',
  'conversation.assigned',
  'conversation.transferred',
  'conversation.ended',
  'message.created',
  'visitor.created',
  'visitor.identified',
  'letter.created',
  'rating.created',
  'agent.status',
  'note.created',
  'conversation.labelled',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Every `type` of an envelope: the events above, and `ping`, which "send a test event" sends. */
export type WebhookEventType = WebhookEvent | 'ping';

export const WEBHOOK_DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

/** Headers of each delivery: the event's type, the delivery's id (the same on each retry) and the signature. */
export const WEBHOOK_HEADERS = { event: 'Parley-Event', delivery: 'Parley-Delivery', signature: 'Parley-Signature' } as const;

export interface Webhook {
  id: number;
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
  /** Failed attempts in a row; at 20 the webhook is disabled and Admins are told. */
  failures: number;
  /** Until when the secret replaced last still signs beside the new one (null: no rotation under way). */
  previousSecretUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The answer of a creation, or of a rotation: the secret is shown this once, and sealed at rest. */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

/** One event's way to one webhook. `id` is what `Parley-Delivery` carries, the same on every retry. */
export interface WebhookDelivery {
  id: string;
  event: WebhookEventType;
  status: WebhookDeliveryState;
  attempts: number;
  /** The HTTP status of the last answer; null when there was none (timeout, refused, redirect…). */
  responseCode: number | null;
  /** Why the last attempt failed, when it did: `http`, `timeout`, `redirect`, `tooLarge`, `blockedAddress`… */
  error: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  /** When it is tried next (pending only). */
  nextAttemptAt: string | null;
}

const webhookId = z.coerce.number().int().positive();

export const webhookEditBody = z.object({
  id: webhookId.optional(),
  url: line(z.string().trim().min(1).max(2048)),
  events: z
    .array(z.enum(WEBHOOK_EVENTS))
    .min(1)
    .max(WEBHOOK_EVENTS.length)
    .transform((events) => [...new Set(events)]),
  enabled: z.boolean(),
});
export const webhookIdBody = z.object({ id: webhookId });
export const webhookDeliveriesQuery = z.object({
  id: webhookId,
  pageNo: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});
export const webhookRedeliverBody = z.object({ deliveryId: z.uuid() });

/** Webhooks (CONTRACT §12), managed by holders of `setPermissions:access`. */
export const webhookEndpoints = endpointGroup({
  'GET /api/webhook/getList': { response: returns<{ list: Webhook[]; total: number }>() },
  /** Creates (answers the secret this once) or edits (no secret) a webhook. */
  'POST /api/webhook/doEdit': { body: webhookEditBody, response: returns<Webhook | WebhookWithSecret>() },
  /** Deletes webhooks; their pending deliveries are dropped. */
  'POST /api/webhook/doDelete': { body: deleteBody, response: returns<void>() },
  /** Sends a `ping` event through the delivery queue; answers its delivery. */
  'POST /api/webhook/test': { body: webhookIdBody, response: returns<WebhookDelivery>() },
  /** A new secret, answered this once; the old one keeps signing beside it for a day. */
  'POST /api/webhook/rotateSecret': { body: webhookIdBody, response: returns<WebhookWithSecret>() },
  /** The webhook's deliveries, newest first. */
  'GET /api/webhook/deliveries': { query: webhookDeliveriesQuery, response: returns<{ list: WebhookDelivery[]; total: number }>() },
  /** The same event again, as a new delivery (a new `Parley-Delivery`). */
  'POST /api/webhook/redeliver': { body: webhookRedeliverBody, response: returns<WebhookDelivery>() },
});
