import type { Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { foundation } from './001_foundation.js';
import { chat } from './002_chat.js';
import { uploads } from './003_uploads.js';
import { presence } from './004_presence.js';
import { uploadQuotas } from './006_upload_quotas.js';

/** Every migration, in order; numbered and forward only. The same set serves SQLite and PostgreSQL. */
export function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '001_foundation': foundation(dialect),
    '002_chat': chat(dialect),
    '003_uploads': uploads(dialect),
    '004_presence': presence(),
    '006_upload_quotas': uploadQuotas(),
  };
}
