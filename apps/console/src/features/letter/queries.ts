import type { Letter } from '@parley/protocol';
import { call } from '../../lib/api';
import { queryClient } from '../../lib/queryClient';

/**
 * Everything a letter changes on screen: the inbox's lists and unread count (all under `letter`) and the
 * header's notices. Called after reading or handling letters here and when the server pushes a new one.
 */
export function refreshLetters(): Promise<void> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: ['letter'] }),
    queryClient.invalidateQueries({ queryKey: ['notice'] }),
  ]).then(() => undefined);
}

/** A new letter (socket 8012): the unread count rises at once, the lists follow from the server. */
export function letterArrived(letter: Partial<Letter> | undefined): Promise<void> {
  if (letter?.read !== true) queryClient.setQueryData<number>(['letter', 'unreadCount'], (count) => (count ?? 0) + 1);
  return refreshLetters();
}

export async function markRead(ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await call('POST /api/letter/read', { ids });
  await refreshLetters();
}
