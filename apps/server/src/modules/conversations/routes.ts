import type { DefineRoute } from '../../lib/http.js';
import type { ConversationService } from './service.js';

/** The visitor's side of a conversation: the YQToken is the visitor's credential. */
export function visitorConversationRoutes(route: DefineRoute, conversations: ConversationService): void {
  route('POST /api/visitor/message', {
    access: 'public',
    limit: 'visitorMessage',
    handler: ({ body }) => conversations.visitorMessage(body.YQToken, body),
  });
  route('GET /api/visitor/messages', {
    access: 'public',
    limit: 'visitorMessages',
    handler: ({ query }) => conversations.visitorMessages(query.YQToken, query.afterSeq),
  });
  route('POST /api/visitor/handover', {
    access: 'public',
    limit: 'visitorHandover',
    handler: ({ body }) => conversations.visitorHandover(body.YQToken),
  });
  route('POST /api/visitor/rate', {
    access: 'public',
    limit: 'visitorRate',
    handler: ({ body }) => conversations.rate(body.YQToken, body.score, body.comment),
  });
}

/** The workbench API of agents: YQToken is the visitor's public id, never its credential. */
export function talkRoutes(route: DefineRoute, conversations: ConversationService): void {
  route('GET /api/talk/userList', { access: 'agent', handler: ({ auth }) => conversations.userList(auth) });
  route('GET /api/talk/messages', {
    access: 'agent',
    handler: ({ auth, query }) => conversations.agentMessages(auth, query.YQToken, query),
  });
  route('GET /api/talk/visits', { access: 'agent', handler: ({ auth, query }) => conversations.visits(auth, query.YQToken) });
  route('POST /api/talk/send', { access: 'agent', handler: ({ auth, body }) => conversations.agentSend(auth, body) });
  route('POST /api/talk/accept', { access: 'agent', handler: ({ auth, body }) => conversations.accept(auth, body.YQToken) });
  route('POST /api/talk/transfer', {
    access: 'agent',
    handler: ({ auth, body }) => conversations.transfer(auth, body.YQToken, body.serviceID),
  });
  route('POST /api/talk/end', { access: 'agent', handler: ({ auth, body }) => conversations.end(auth, body.YQToken) });
  route('POST /api/talk/withdraw', {
    access: 'agent',
    handler: ({ auth, body }) => conversations.withdraw(auth, body.YQToken, body.onlyID),
  });
  route('POST /api/talk/monitor', { access: 'agent', handler: ({ auth, body }) => conversations.monitor(auth, body.YQToken) });
  route('POST /api/talk/read', { access: 'agent', handler: ({ auth, body }) => conversations.markRead(auth, body.YQToken) });
}
