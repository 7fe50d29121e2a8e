import { isSettingsPage, SECRET_FIELDS, type SettingsAnswer, type SettingsOf, type SettingsPage, secretFlag } from '@parley/protocol';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The object holding a dotted path's last key, if every step on the way is an object. */
function holderOf(root: unknown, path: string): { holder: Json; key: string } | undefined {
  const keys = path.split('.');
  const key = keys.pop();
  let at: unknown = root;
  for (const step of keys) at = isObject(at) ? at[step] : undefined;
  return isObject(at) && key !== undefined ? { holder: at, key } : undefined;
}

/**
 * A copy of the page with each secret answered as '' (set or not), so an answer never tells one, and
 * beside it whether one is stored (`secretFlag`).
 */
export function withoutSecrets<P extends SettingsPage>(page: P, value: SettingsOf<P>): SettingsAnswer<P> {
  const copy = structuredClone(value);
  for (const path of SECRET_FIELDS[page]) {
    const found = holderOf(copy, path);
    if (!found) continue;
    const secret = found.holder[found.key];
    found.holder[secretFlag(found.key)] = typeof secret === 'string' && secret !== '';
    if (typeof secret === 'string') found.holder[found.key] = '';
  }
  // The flags were added beside each secret the page's type names: the loop cannot be typed path by path.
  return copy as SettingsAnswer<P>;
}

/** The page as sent, with each secret it left empty taken from what is stored (a form never gets them back). */
export function keepSecrets<T>(page: SettingsPage, sent: T, stored: unknown): T {
  const copy = structuredClone(sent);
  for (const path of SECRET_FIELDS[page]) {
    const target = holderOf(copy, path);
    const source = holderOf(stored, path);
    if (!target || !source) continue;
    const current = target.holder[target.key];
    if ((current === undefined || current === '') && typeof source.holder[source.key] === 'string') {
      target.holder[target.key] = source.holder[source.key];
    }
  }
  return copy;
}

/** The settings table's key of the smart robot's settings, which are not one of the chat-window pages. */
export const ROBOT_HIGH_KEY = 'robotHigh';

/** The dotted paths of the secrets a stored settings row holds, by its key. */
export function secretPathsOf(key: string): readonly string[] {
  if (key === ROBOT_HIGH_KEY) return ['llm.apiKey', 'embeddings.apiKey'];
  return isSettingsPage(key) ? SECRET_FIELDS[key] : [];
}

/**
 * A stored row's JSON with each of its secrets passed through `change` (sealing or opening), or the
 * text unchanged when it holds none or is not JSON (the reader reports that as it always did).
 */
export function mapSecrets(key: string, json: string, change: (value: string, purpose: string) => string): string {
  const paths = secretPathsOf(key);
  if (paths.length === 0) return json;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return json;
  }
  let changed = false;
  for (const path of paths) {
    const found = holderOf(value, path);
    const secret = found?.holder[found.key];
    if (!found || typeof secret !== 'string' || secret === '') continue;
    const next = change(secret, `settings:${key}:${path}`);
    if (next !== secret) {
      found.holder[found.key] = next;
      changed = true;
    }
  }
  return changed ? JSON.stringify(value) : json;
}
