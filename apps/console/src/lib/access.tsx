import { type AccessHolder, can, type Guard } from '@parley/protocol';
import type { ReactNode } from 'react';
import { useUserInfo } from '../features/auth/queries';

const NOBODY: AccessHolder = { roles: [], permissions: [] };

/** The signed-in user's roles and permissions; nobody's while they load. */
export function useAccess(): AccessHolder {
  const { data } = useUserInfo();
  return data ?? NOBODY;
}

export function useCan(guard: Guard | undefined): boolean {
  return can(useAccess(), guard);
}

/** The seed's permission directive: children are removed, not disabled, when the check fails. */
export function Permission({ guard, children }: { guard: Guard; children: ReactNode }) {
  return useCan(guard) ? children : null;
}
