import { useQuery } from '@tanstack/react-query';
import { call } from '../../lib/api';

export const personalKey = ['personal'] as const;
export const sessionsKey = ['personal', 'sessions'] as const;

export function usePersonal() {
  return useQuery({ queryKey: personalKey, queryFn: () => call('GET /api/personal') });
}

export function useSessions() {
  // Sessions come and go elsewhere (another browser signs in): the list is read afresh each time it is shown.
  return useQuery({ queryKey: sessionsKey, queryFn: () => call('GET /api/personal/sessions'), staleTime: 0, refetchOnWindowFocus: true });
}
