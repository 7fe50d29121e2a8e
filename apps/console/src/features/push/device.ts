import { SocketCode } from '@parley/protocol';
import { call } from '../../lib/api';

/** Whether this browser can take Web Push at all (a secure page with a service worker and the Push API). */
export function pushSupported(): boolean {
  return (
    typeof window !== 'undefined' &&
    window.isSecureContext &&
    'serviceWorker' in navigator &&
    'PushManager' in window &&
    'Notification' in window
  );
}

/** The frame that tells the server whether this console is on screen (CONTRACT §14: 8030). */
export function visibilityFrame() {
  return { code: SocketCode.visibility, data: { visible: document.visibilityState === 'visible' } };
}

function applicationServerKey(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** The console's service worker, once active; none while the console runs without one (a development server). */
async function registration(): Promise<ServiceWorkerRegistration | null> {
  if (!(await navigator.serviceWorker.getRegistration())) return null;
  return navigator.serviceWorker.ready;
}

/** This browser's subscription, if it has one. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  return (await registration())?.pushManager.getSubscription() ?? null;
}

function toBody(subscription: PushSubscription) {
  const json = subscription.toJSON();
  return { endpoint: subscription.endpoint, keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' } };
}

/**
 * Asks for permission, subscribes this browser with the server's key and hands the subscription to the
 * server. A subscription made for another key (the server's keys were made anew) is replaced.
 */
export async function subscribeThisDevice(): Promise<'subscribed' | 'denied' | 'unsupported'> {
  const worker = await registration();
  if (!worker) return 'unsupported';
  if ((await Notification.requestPermission()) !== 'granted') return 'denied';
  const { publicKey } = await call('GET /api/push/key');
  const manager = worker.pushManager;
  const key = applicationServerKey(publicKey);
  let subscription = await manager.getSubscription();
  const same = subscription?.options.applicationServerKey
    ? new Uint8Array(subscription.options.applicationServerKey).join() === key.join()
    : false;
  if (subscription && !same) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await manager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  await call('POST /api/push/subscribe', toBody(subscription));
  return 'subscribed';
}

export async function unsubscribeThisDevice(): Promise<void> {
  const subscription = await currentSubscription();
  if (!subscription) return;
  await call('POST /api/push/unsubscribe', { endpoint: subscription.endpoint });
  await subscription.unsubscribe();
}

/**
 * On each start of the console: a browser already subscribed is handed to the server again, so the agent
 * signed in now is the one it notifies (another agent may have used this browser before).
 */
export async function resyncThisDevice(): Promise<void> {
  if (!pushSupported() || Notification.permission !== 'granted') return;
  const subscription = await currentSubscription();
  if (subscription) await call('POST /api/push/subscribe', toBody(subscription), { silent: true });
}
