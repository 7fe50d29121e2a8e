import { z } from 'zod';
import { deleteBody, type ListData, pageQuery } from './api.js';
import { conversationBody } from './chat.js';
import { endpointGroup, returns } from './endpoint.js';
import { line, multiline } from './strings.js';

// Conversation labels: a managed list of names and colours (`/service/label`) that agents put on
// conversations in the workbench; history filters by them and the statistics count conversations by them.

/** A label's colour as the console draws it: `#rrggbb`. */
export const labelColor = z.string().regex(/^#[0-9a-fA-F]{6}$/);
/** How many labels one conversation carries at most. */
export const MAX_CONVERSATION_LABELS = 20;

export interface Label {
  id: number;
  name: string;
  /** `#rrggbb`, lower case. */
  color: string;
  description: string;
  /** Conversations carrying it now. */
  conversations: number;
  createdAt: string;
}

/** A label as a conversation carries it. */
export interface LabelRef {
  id: number;
  name: string;
  color: string;
}

export const labelListQuery = pageQuery.extend({ keyword: line(z.string().trim().max(64)).optional() });
/** Names are unique (case-insensitive); a taken one answers 400 naming `name`. */
export const labelEditBody = z.object({
  id: z.coerce.number().int().positive().optional(),
  name: line(z.string().trim().min(1).max(32)),
  color: labelColor,
  description: multiline(z.string().trim().max(200)).optional(),
});

/** Replaces the labels of the visitor's latest conversation (YQToken: the visitor's public id). */
export const conversationLabelsBody = conversationBody.extend({
  labelIds: z.array(z.coerce.number().int().positive()).max(MAX_CONVERSATION_LABELS),
});

export interface ConversationLabels {
  /** The visitor's public id. */
  YQToken: string;
  /** The conversation the labels are on: the visitor's latest. */
  conversationId: number;
  labels: LabelRef[];
}

export const labelEndpoints = endpointGroup({
  /** Any agent reads the list (the workbench's picker); changing it takes setPermissions:service. */
  'GET /api/label/getList': { query: labelListQuery, response: returns<ListData<Label>>() },
  'POST /api/label/doEdit': { body: labelEditBody, response: returns<{ id: number }>() },
  'POST /api/label/doDelete': { body: deleteBody, response: returns<void>() },
  /**
   * The labels of the open (or latest) conversation of every visitor the caller sees in the workbench
   * (the same visitors as `/api/talk/userList`), for the header and the list.
   */
  'GET /api/talk/labels': { response: returns<{ list: ConversationLabels[] }>() },
  /** Only the conversation's agent or a supervisor; answers the conversation's labels as stored. */
  'POST /api/talk/labels': { body: conversationLabelsBody, response: returns<ConversationLabels>() },
});
