import { type SettingsAnswer, type SettingsOf, type SettingsPage, secretFlag, settingsSchemas } from '@parley/protocol';
import type { z } from 'zod';
import { call } from '../../../lib/api';

type Key<P extends SettingsPage, M extends 'GET' | 'POST'> = `${M} /api/settings/${P}`;

/** The page's stored values, defaults filled in (secrets left empty, a flag beside each telling whether one is stored). */
export function loadSettings<P extends SettingsPage>(page: P): Promise<SettingsAnswer<P>> {
  const key: Key<SettingsPage, 'GET'> = `GET /api/settings/${page}`;
  return call(key) as Promise<SettingsAnswer<P>>;
}

/** Stores the whole page; the answer is what was stored. */
export function saveSettings<P extends SettingsPage>(page: P, value: SettingsOf<P>): Promise<SettingsAnswer<P>> {
  const key: Key<SettingsPage, 'POST'> = `POST /api/settings/${page}`;
  return call(key, value as never) as Promise<SettingsAnswer<P>>;
}

/** Whether the page as answered holds a value for the secret at `path` (its `secretFlag` beside it). */
export function secretStored(answer: unknown, path: readonly (string | number)[]): boolean {
  const key = path.at(-1);
  let holder: unknown = answer;
  for (const step of path.slice(0, -1))
    holder = typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>)[step] : undefined;
  if (typeof key !== 'string' || typeof holder !== 'object' || holder === null) return false;
  return (holder as Record<string, unknown>)[secretFlag(key)] === true;
}

export function schemaOf<P extends SettingsPage>(page: P): z.ZodType<SettingsOf<P>> {
  return settingsSchemas[page] as unknown as z.ZodType<SettingsOf<P>>;
}
