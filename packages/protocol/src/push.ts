import { z } from 'zod';
import { endpointGroup, returns } from './endpoint.js';

/** What an agent is pushed about (CONTRACT §14); each follows the agent's own switch, else the team's. */
export const PUSH_TYPES = ['newUser', 'newMsg', 'transfer', 'letter', 'test'] as const;
export type PushType = (typeof PUSH_TYPES)[number];

/** The JSON a push carries, decrypted by the console's service worker. `url` opens the conversation. */
export interface PushPayload {
  type: PushType;
  title: string;
  body: string;
  url: string;
}

/** One browser (device) of the calling agent that receives pushes. */
export interface PushDevice {
  id: number;
  /** The push service's host only: the endpoint itself is a capability and is not shown back. */
  service: string;
  /** The browser as its `User-Agent` told when it subscribed, cut short. */
  userAgent: string;
  createdAt: string;
  lastSentAt: string | null;
  /** When the last push to it failed and why (`http 500`, `timeout`, …); null after a push that went through. */
  lastFailedAt: string | null;
  lastError: string | null;
}

/** A push service's address: https, as browsers hand them out (http only where OUTBOUND_ALLOW lets a test double in). */
const endpoint = z.url({ protocol: /^https?$/ }).max(1024);
/** base64url, as `PushSubscription.toJSON()` gives the keys. */
const base64url = (min: number, max: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+=*$/)
    .min(min)
    .max(max);

export const pushSubscribeBody = z.object({
  endpoint,
  /** `p256dh`: the browser's P-256 public key (65 bytes uncompressed); `auth`: its 16-byte secret. */
  keys: z.object({ p256dh: base64url(86, 90), auth: base64url(22, 24) }),
});
export const pushUnsubscribeBody = z.object({ endpoint });
/** The console's visibility frame (8030). */
export const pushVisibilityData = z.object({ visible: z.boolean() });
export const pushDeviceBody = z.object({ id: z.coerce.number().int().positive() });

/** Web Push to the agents' browsers (CONTRACT §14): the calling agent's own subscriptions, any agent. */
export const pushEndpoints = endpointGroup({
  'GET /api/push/key': { response: returns<{ publicKey: string }>() },
  'POST /api/push/subscribe': { body: pushSubscribeBody, response: returns<PushDevice>() },
  'POST /api/push/unsubscribe': { body: pushUnsubscribeBody, response: returns<void>() },
  /** The calling agent's devices, newest first. */
  'GET /api/push/devices': { response: returns<{ list: PushDevice[]; total: number }>() },
  'POST /api/push/devices/remove': { body: pushDeviceBody, response: returns<void>() },
  /** Sends "a test notification" to each of the calling agent's devices now, visible console or not. */
  'POST /api/push/test': { response: returns<{ sent: number; failed: number }>() },
});
