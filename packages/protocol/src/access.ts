import { ADMIN_ROLE } from './permissions.js';

/** What a signed-in user holds, as `/api/userInfo` reports it. */
export interface AccessHolder {
  roles: readonly string[];
  permissions: readonly string[];
}

export type AccessMode = 'allOf' | 'oneOf' | 'except';

/**
 * A guard, in the console's three forms: a list passes when any item is held among roles and
 * permissions; the object form checks its role list against roles and its permission list against
 * permissions, each with `mode` (default oneOf), and passes only when every given list passes.
 */
export type Guard = readonly string[] | { role?: readonly string[]; permission?: readonly string[]; mode?: AccessMode };

export function isAdmin(holder: AccessHolder): boolean {
  return holder.roles.includes(ADMIN_ROLE);
}

function matches(held: readonly string[], wanted: readonly string[], mode: AccessMode): boolean {
  switch (mode) {
    case 'allOf':
      return wanted.every((item) => held.includes(item));
    case 'oneOf':
      return wanted.some((item) => held.includes(item));
    case 'except':
      return !wanted.some((item) => held.includes(item));
  }
}

/** The one access check of console and server: an administrator passes everything; no guard passes. */
export function can(holder: AccessHolder, guard: Guard | undefined): boolean {
  if (guard === undefined) return true;
  if (isAdmin(holder)) return true;
  if (isGuardList(guard)) {
    if (guard.length === 0) return true;
    return matches([...holder.roles, ...holder.permissions], guard, 'oneOf');
  }
  const mode = guard.mode ?? 'oneOf';
  const checks: boolean[] = [];
  if (guard.role && guard.role.length > 0) checks.push(matches(holder.roles, guard.role, mode));
  if (guard.permission && guard.permission.length > 0) checks.push(matches(holder.permissions, guard.permission, mode));
  return checks.every(Boolean);
}

/**
 * Whether `holder` may give `target` (a role, or an agent through its role) or manage an account holding
 * it: an administrator may do anything; anyone else only what they hold themselves, and never the Admin role.
 */
export function grantable(holder: AccessHolder, target: AccessHolder): boolean {
  if (isAdmin(holder)) return true;
  if (isAdmin(target)) return false;
  return target.permissions.every((permission) => holder.permissions.includes(permission));
}

function isGuardList(guard: Guard): guard is readonly string[] {
  return Array.isArray(guard);
}
