import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** The database, as services and repositories hold it. */
export type Db = Kysely<Database>;

/** The database or an open transaction: repositories take it so a service decides where a query runs. */
export type DbOrTx = Db | Transaction<Database>;
