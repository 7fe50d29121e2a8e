import type { Mention, Note } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { call } from '../../lib/api';
import { notifyAction, toastError } from '../../lib/feedback';
import { HttpError } from '../../lib/http';
import { i18n } from '../../lib/i18n';
import { queryClient } from '../../lib/queryClient';
import { newOnlyId } from './model';

/**
 * Internal notes of the workbench: read per visitor, kept current by the `note` frame (8014), written
 * over HTTP. They are agents' only: the visitor's socket and API never carry them.
 */
const notesKey = (token: string) => ['workbench', 'notes', token] as const;

export function useNotes(token: string, enabled = true) {
  return useQuery({
    queryKey: notesKey(token),
    queryFn: () => call('GET /api/talk/notes', { YQToken: token }, { silent: true }).then((data) => data.list),
    enabled,
    // Read again whenever a conversation is opened: only its agent, monitors and author are told of new ones.
    staleTime: 0,
    refetchOnWindowFocus: false,
    retry: false,
  });
}

/** After the socket was away, the notes told meanwhile are read again. */
export function refreshNotes(): void {
  void queryClient.invalidateQueries({ queryKey: ['workbench', 'notes'] });
}

/** A note stored or told by the socket: kept once (by onlyID), oldest first. */
export function noteArrived(note: Note): void {
  queryClient.setQueryData<Note[]>(notesKey(note.YQToken), (old) => {
    if (!old) return old;
    const others = old.filter((held) => held.onlyID !== note.onlyID);
    return [...others, note].sort((a, b) => a.id - b.id);
  });
}

/** Stores a note (idempotent on onlyID); whether it was stored. */
export async function addNote(token: string, msg: string): Promise<boolean> {
  try {
    noteArrived(await call('POST /api/talk/note', { YQToken: token, msg, onlyID: newOnlyId() }, { silent: true }));
    return true;
  } catch (error) {
    toastError(error instanceof HttpError ? error.message : i18n.t('workbench.errors.generic'));
    return false;
  }
}

/** Someone mentioned this agent in a note: a notification that opens the conversation, and the bell's list anew. */
export function mentioned({ note, visitor }: Mention): void {
  void queryClient.invalidateQueries({ queryKey: ['notice', 'list'] });
  notifyAction(
    i18n.t('workbench.note.mentionedTitle', { name: note.nickname }),
    i18n.t('workbench.note.mentionedText', { visitor, text: note.msg.slice(0, 200) }),
    {
      label: i18n.t('workbench.note.open'),
      onClick: () => {
        window.location.hash = `#/history/historyDetail?id=${note.conversationId}`;
      },
    },
  );
}
