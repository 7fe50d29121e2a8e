import { type SettingsOf, settingsDefaults } from '@parley/protocol';

/** This browser's own alert switches, read and written as the seed names them. */
export const PREFERENCE_KEYS = { newUser: 'newUser', newMsg: 'newMsg', sound: 'workbench-sound' } as const;
export type PreferenceName = keyof typeof PREFERENCE_KEYS;

export const BLINK_MS = 600;

/** The team's defaults: the `desktopSetting` settings page. */
export type DesktopDefaults = SettingsOf<'desktopSetting'>;
/** The agent's own choices (personal `notify`); one left unset follows the team's default. */
export type PersonalNotify = Partial<Record<PreferenceName, boolean | null>>;
/** The switches set in this browser; one never touched here is left out. */
export type LocalChoices = Partial<Record<PreferenceName, boolean>>;

/** What the workbench does when a visitor arrives or writes; a sound is its address, '' for none. */
export interface AlertChoices {
  newUserSound: string;
  newMsgSound: string;
  notifyNewUser: boolean;
  notifyNewMsg: boolean;
  titleBlink: boolean;
}

/**
 * A switch set in this browser wins, then the agent's personal choice, then the team's default. The team
 * picks the sounds ('' for none); the agent's one sound switch only silences them. The title blink is the
 * team's alone.
 */
export function effectiveAlerts(team: DesktopDefaults, personal: PersonalNotify | undefined, local: LocalChoices): AlertChoices {
  const sound = local.sound ?? personal?.sound ?? true;
  return {
    newUserSound: sound ? team.newUserSound : '',
    newMsgSound: sound ? team.newMsgSound : '',
    notifyNewUser: local.newUser ?? personal?.newUser ?? team.notifyNewUser,
    notifyNewMsg: local.newMsg ?? personal?.newMsg ?? team.notifyNewMsg,
    titleBlink: team.titleBlink,
  };
}

export function readLocalChoices(): LocalChoices {
  const choices: LocalChoices = {};
  for (const name of Object.keys(PREFERENCE_KEYS) as PreferenceName[]) {
    try {
      const value = localStorage.getItem(PREFERENCE_KEYS[name]);
      if (value !== null) choices[name] = value === '1';
    } catch {
      // Storage may be blocked: the personal and team choices then apply.
    }
  }
  return choices;
}

export function writePreference(name: PreferenceName, on: boolean): void {
  try {
    localStorage.setItem(PREFERENCE_KEYS[name], on ? '1' : '0');
  } catch {
    // Storage may be blocked; the toggle then lasts until the page is reloaded.
  }
}

let team: DesktopDefaults = settingsDefaults.desktopSetting;
let personal: PersonalNotify | undefined;

/** Keeps what the server said last: the team's defaults and, once read, the agent's own choices. */
export function setAlertSources(sources: { team?: DesktopDefaults; personal?: PersonalNotify }): void {
  if (sources.team) team = sources.team;
  if (sources.personal) personal = sources.personal;
}

/** The choices as they stand now: a switch flipped in this browser applies to the next alert. */
export function currentAlerts(): AlertChoices {
  return effectiveAlerts(team, personal, readLocalChoices());
}

const sounds = new Map<string, HTMLAudioElement>();

export function playSound(url: string): void {
  if (!url) return;
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

/** A desktop notification of this kind ('newUser' or 'newMsg'), when the browser allows it. */
export function notifyDesktop(kind: 'newUser' | 'newMsg', title: string, body: string): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
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
