import { type SettingsOf, type SettingsPage, settingsSchemas } from '@parley/protocol';
import type { z } from 'zod';
import { call } from '../../../lib/api';

type Key<P extends SettingsPage, M extends 'GET' | 'POST'> = `${M} /api/settings/${P}`;

/** The page's stored values, defaults filled in (secrets left empty). */
export function loadSettings<P extends SettingsPage>(page: P): Promise<SettingsOf<P>> {
  const key: Key<SettingsPage, 'GET'> = `GET /api/settings/${page}`;
  return call(key) as Promise<SettingsOf<P>>;
}

/** Stores the whole page; the answer is what was stored. */
export function saveSettings<P extends SettingsPage>(page: P, value: SettingsOf<P>): Promise<SettingsOf<P>> {
  const key: Key<SettingsPage, 'POST'> = `POST /api/settings/${page}`;
  return call(key, value as never) as Promise<SettingsOf<P>>;
}

export function schemaOf<P extends SettingsPage>(page: P): z.ZodType<SettingsOf<P>> {
  return settingsSchemas[page] as unknown as z.ZodType<SettingsOf<P>>;
}
