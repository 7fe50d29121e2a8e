import type { Notice } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { call } from '../../lib/api';
import { useSession } from '../../stores/session';

/** Unread leave messages; the badge stays empty (not an error) while the server has no such count. */
export function useLetterUnread(): number {
  const token = useSession((state) => state.token);
  const { data } = useQuery({
    queryKey: ['letter', 'unreadCount'],
    queryFn: () => call('GET /api/letter/unreadCount', undefined, { silent: true }).catch(() => 0),
    enabled: Boolean(token),
    refetchInterval: 60_000,
  });
  return typeof data === 'number' && data > 0 ? data : 0;
}

/**
 * What the bell counts: each unread letter once, and every other notice. The server's notices already
 * hold one entry standing for the unread letters, which the count of letters replaces.
 */
export function bellCount(unreadLetters: number, notices: Notice[]): number {
  return unreadLetters + notices.filter((notice) => notice.kind !== 'letter').length;
}

export function useNotices() {
  const token = useSession((state) => state.token);
  return useQuery({
    queryKey: ['notice', 'list'],
    queryFn: () => call('GET /api/notice/getList', undefined, { silent: true }),
    enabled: Boolean(token),
    refetchInterval: 60_000,
  });
}

export function fetchSuggestions(keyword: string) {
  return call('GET /api/search/getList', { keyword }, { silent: true });
}
