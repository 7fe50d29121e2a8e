import type { ListData, Notice, SearchSuggestion } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../lib/request';
import { useSession } from '../../stores/session';

/** Unread leave messages; the badge stays empty (not an error) while the server has no such count. */
export function useLetterUnread(): number {
  const token = useSession((state) => state.token);
  const { data } = useQuery({
    queryKey: ['letter', 'unreadCount'],
    queryFn: () => http.get<unknown>('/api/letter/unreadCount', { silent: true }).catch(() => 0),
    enabled: Boolean(token),
    refetchInterval: 60_000,
  });
  return typeof data === 'number' && data > 0 ? data : 0;
}

export function useNotices() {
  const token = useSession((state) => state.token);
  return useQuery({
    queryKey: ['notice', 'list'],
    queryFn: () => http.get<ListData<Notice>>('/api/notice/getList', { silent: true }),
    enabled: Boolean(token),
    refetchInterval: 60_000,
  });
}

export function fetchSuggestions(keyword: string): Promise<{ list: SearchSuggestion[] }> {
  return http.get('/api/search/getList', { params: { keyword }, silent: true });
}
