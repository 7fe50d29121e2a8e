import type { Insertable } from 'kysely';
import type { Database } from '../src/db/schema.js';
import { UNTOUCHED_VISITOR } from '../src/modules/visitors/repository.js';

type VisitorInsert = Insertable<Database['visitors']>;

/**
 * A visitor's row for tests that write rows directly (a long history at once, the data an earlier version
 * left): a quiet web visitor with nothing known of them, the given columns over it.
 */
export function visitorRow(
  row: Pick<VisitorInsert, 'token_hash' | 'public_id' | 'created_at' | 'last_seen_at'> & Partial<VisitorInsert>,
): VisitorInsert {
  return {
    ...UNTOUCHED_VISITOR,
    channel: 'web',
    ip: '',
    region: '',
    user_agent: '',
    platform: '',
    browser: '',
    device: '',
    referrer: '',
    engine: '',
    keyword: '',
    first_url: '',
    lang: '',
    link_id: null,
    ...row,
  };
}
