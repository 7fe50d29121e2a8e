/** Local preferences of the workbench's alerts, read and written as the seed names them. */
export const PREFERENCE_KEYS = { newUser: 'newUser', newMsg: 'newMsg', sound: 'workbench-sound' } as const;
export type PreferenceName = keyof typeof PREFERENCE_KEYS;

export const BLINK_MS = 600;

export function readPreference(name: PreferenceName): boolean {
  try {
    const value = localStorage.getItem(PREFERENCE_KEYS[name]);
    // Sound is on unless turned off; desktop notifications are off unless turned on ('1').
    return name === 'sound' ? value !== '0' : value === '1';
  } catch {
    return name === 'sound';
  }
}

export function writePreference(name: PreferenceName, on: boolean): void {
  try {
    localStorage.setItem(PREFERENCE_KEYS[name], on ? '1' : '0');
  } catch {
    // Storage may be blocked; the toggle then lasts until the page is reloaded.
  }
}

const sounds = new Map<string, HTMLAudioElement>();

export function playSound(url: string): void {
  if (!url || !readPreference('sound')) return;
  let audio = sounds.get(url);
  if (!audio) {
    audio = new Audio(url);
    sounds.set(url, audio);
  }
  audio.currentTime = 0;
  // Browsers refuse to play before the first user gesture; the title blink still tells the agent.
  audio.play().catch(() => undefined);
}

let blinkTimer: ReturnType<typeof setInterval> | undefined;
let restoreTitle = '';

function stopBlink(): void {
  if (blinkTimer === undefined) return;
  clearInterval(blinkTimer);
  blinkTimer = undefined;
  document.title = restoreTitle;
  document.removeEventListener('click', stopBlink, true);
}

/** Seed §4: the title alternates between two 'new message' texts every 600 ms until any click. */
export function blinkTitle(on: string, off: string): void {
  if (blinkTimer !== undefined) return;
  restoreTitle = document.title;
  let shown = false;
  blinkTimer = setInterval(() => {
    shown = !shown;
    document.title = `${shown ? on : off} ${restoreTitle}`;
  }, BLINK_MS);
  document.addEventListener('click', stopBlink, true);
}

export { stopBlink };

/** A desktop notification when the agent asked for this kind ('newUser' or 'newMsg') and the browser allows it. */
export function notifyDesktop(kind: 'newUser' | 'newMsg', title: string, body: string): void {
  if (!readPreference(kind) || typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  try {
    const notification = new Notification(title, { body, tag: `parley-${kind}` });
    notification.onclick = () => {
      window.focus();
      notification.close();
    };
  } catch {
    // Some browsers only allow notifications from a service worker; the sound and blink remain.
  }
}

export async function askNotificationPermission(): Promise<boolean> {
  if (typeof Notification === 'undefined') return false;
  if (Notification.permission === 'granted') return true;
  if (Notification.permission === 'denied') return false;
  return (await Notification.requestPermission()) === 'granted';
}
