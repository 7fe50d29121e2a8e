import { ADMIN_ROLE, type AgentIndex, can } from '@parley/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAccess } from '../../lib/access';
import { call } from '../../lib/api';
import { workbenchApi } from './api';

export const workbenchKeys = {
  index: ['workbench', 'index'] as const,
  agents: ['workbench', 'agents'] as const,
  quickReplies: ['settings', 'quickReply'] as const,
};

/** The agent's own identity, availability and alert sounds; the socket opens once this has loaded. */
export function useIndexInfo() {
  return useQuery({ queryKey: workbenchKeys.index, queryFn: workbenchApi.index, staleTime: Number.POSITIVE_INFINITY });
}

/** Online / hidden; the server tells the other agents (8007). */
export function useSetAgentState() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: workbenchApi.setState,
    onSuccess: ({ state }) => {
      client.setQueryData<AgentIndex>(workbenchKeys.index, (old) => (old ? { ...old, info: { ...old.info, state } } : old));
    },
  });
}

/** Supervisors (role Admin or setPermissions:service) may monitor, transfer any and read the agent list. */
export function useIsSupervisor(): boolean {
  const access = useAccess();
  return can(access, { role: [ADMIN_ROLE] }) || access.permissions.includes('setPermissions:service');
}

/**
 * Every enabled agent, with availability and whether a console is open: the transfer targets, and the
 * seed's monitoredList. Any agent may read it.
 */
export function useAgentPeers() {
  return useQuery({
    queryKey: workbenchKeys.agents,
    queryFn: () => workbenchApi.agents().then((data) => data.list),
    staleTime: 60_000,
  });
}

/** The team's quick replies; read again each time the picker opens, so an edit shows without a reload. */
export function useQuickReplies() {
  return useQuery({
    queryKey: workbenchKeys.quickReplies,
    queryFn: () => call('GET /api/settings/quickReply', undefined, { silent: true }),
    staleTime: 0,
  });
}
