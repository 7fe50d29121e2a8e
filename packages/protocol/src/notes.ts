import { z } from 'zod';
import { agentMessageBody } from './chat.js';
import { endpointGroup, returns } from './endpoint.js';
import { visitorId } from './ids.js';

/**
 * An internal note on a conversation: written by its agent or a supervisor, read by agents only. It is
 * not a Message and takes no seq: the visitor never receives one (see migration 025).
 */
export interface Note {
  id: number;
  /** The visitor's public id. */
  YQToken: string;
  /** The conversation (history id) the note belongs to. */
  conversationId: number;
  onlyID: string;
  msg: string;
  /** The author. */
  serviceID: string;
  nickname: string;
  /** ISO 8601 */
  time: string;
  /** The visitor's last seq when it was written: the note follows that message. */
  afterSeq: number;
  /** The uuids of the agents it mentions with `@username`. */
  mentions: string[];
}

/** The `note` frame's data is the Note; the `mentioned` frame's this, sent to the mentioned agent only. */
export interface Mention {
  note: Note;
  /** The visitor's display name, for the notification's text. */
  visitor: string;
}

/** A note's body: the text, as long as a message may be, idempotent on onlyID. */
export const noteBody = agentMessageBody.omit({ type: true });
export const notesQuery = z.object({ YQToken: visitorId });

/**
 * The `@username` mentions in a note's text: an `@` at the start or after a space, then the characters
 * a username may hold; a trailing full stop or comma ends the sentence rather than the name.
 */
export function mentionedNames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(/(?:^|\s)@([\p{L}\p{N}_.@-]+)/gu)) {
    const name = (match[1] ?? '').replace(/[.,-]+$/, '');
    if (name) names.add(name);
  }
  return [...names];
}

export const noteEndpoints = endpointGroup({
  /** Adds an internal note: the conversation's agent or a supervisor. */
  'POST /api/talk/note': { body: noteBody, response: returns<Note>() },
  /** The visitor's notes (its latest conversations'), oldest first, for whoever reads its messages. */
  'GET /api/talk/notes': { query: notesQuery, response: returns<{ list: Note[] }>() },
});
