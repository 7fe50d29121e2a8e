import { SYSTEM_ACTOR } from '@parley/protocol';
import type { DbOrTx } from '../../db/index.js';
import type { AuditActor } from '../../lib/caller.js';
import type { AuditRepository } from './repository.js';

export interface AuditRecord extends AuditActor {
  /** Dotted lowercase, one of the protocol's AUDIT_ACTIONS (`agent.create`, `settings.update`, …). */
  action: string;
  /** What was changed, `<kind>:<name or id>`: `agent:alice`, `role:Support`, `settings:softwareSetting`. */
  target: string;
  /** The change's particulars. Never a secret's value (nor a password's): name the field instead. */
  detail?: Record<string, unknown>;
}

/** A change no person made (a migration, a scheduled job). */
export const SYSTEM: AuditActor = { actor: SYSTEM_ACTOR, actorId: null, ip: '' };

/**
 * The audit log's writer (CONTRACT §15). `record` runs inside the transaction of the change it records,
 * so a change that rolls back leaves no row and a recorded change cannot be lost; rows are never updated
 * or deleted afterwards (the database refuses it too).
 */
export class AuditLog {
  constructor(
    private readonly repo: AuditRepository,
    private readonly now: () => number = Date.now,
  ) {}

  async record(tx: DbOrTx, entry: AuditRecord): Promise<void> {
    await this.repo.insert(tx, {
      actor: entry.actor.slice(0, 64),
      actor_id: entry.actorId ?? null,
      action: entry.action.slice(0, 64),
      target: entry.target.slice(0, 255),
      detail: JSON.stringify(entry.detail ?? {}),
      ip: entry.ip.slice(0, 64),
      created_at: new Date(this.now()).toISOString(),
    });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The dotted paths of the fields whose value differs between `before` and `after`: objects are compared
 * key by key, anything else (arrays included) as a whole. Answers names only, never values, so a
 * secret's path may be listed (it changed) without its value reaching the log.
 */
export function changedFields(before: unknown, after: unknown, prefix = ''): string[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => changedFields(before[key], after[key], prefix ? `${prefix}.${key}` : key));
  }
  return sameValue(before, after) ? [] : [prefix];
}

/** The keys of `after` whose value differs from the same key of `before` (a row and its changes). */
export function changedKeys<T extends object>(before: T, after: Partial<T>): string[] {
  return (Object.keys(after) as (keyof T & string)[]).filter((key) => !sameValue(before[key], after[key]));
}

/** Deep equality of JSON values, whatever the order of an object's keys. */
function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => sameValue(a[key], b[key]));
  }
  return Object.is(a, b);
}
