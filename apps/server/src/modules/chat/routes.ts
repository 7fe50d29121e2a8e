import { clientMeta, type DefineRoute } from '../../lib/http.js';
import type { ChatService } from './service.js';

/** The visitor API: no agent token; the YQToken handed out by init is the visitor's credential. */
export function visitorRoutes(route: DefineRoute, chat: ChatService): void {
  route('POST /api/visitor/init', {
    access: 'public',
    limit: 'visitorInit',
    handler: ({ body, req }) => chat.init(body, clientMeta(req)),
  });
  route('POST /api/visitor/message', {
    access: 'public',
    limit: 'visitorMessage',
    handler: ({ body }) => chat.visitorMessage(body.YQToken, body),
  });
  route('POST /api/visitor/visit', {
    access: 'public',
    limit: 'visitorVisit',
    handler: ({ body }) => chat.visit(body.YQToken, body.url, body.title ?? ''),
  });
  route('GET /api/visitor/messages', {
    access: 'public',
    limit: 'visitorMessages',
    handler: ({ query }) => chat.visitorMessages(query.YQToken, query.afterSeq),
  });
  route('POST /api/visitor/letter', {
    access: 'public',
    limit: 'visitorLetter',
    handler: ({ body, req }) => chat.letter(body, req.ip),
  });
  route('POST /api/visitor/rate', {
    access: 'public',
    limit: 'visitorRate',
    handler: ({ body }) => chat.rate(body.YQToken, body.score, body.comment),
  });
}

/** The workbench API of agents: YQToken is the visitor's public id, never its credential. */
export function talkRoutes(route: DefineRoute, chat: ChatService): void {
  route('GET /api/index', { access: 'agent', handler: ({ auth }) => chat.agentIndex(auth) });
  route('POST /api/index/state', {
    access: 'agent',
    handler: ({ auth, body }) => chat.setAgentState(auth, body.state),
  });
  route('GET /api/talk/userList', { access: 'agent', handler: ({ auth }) => chat.userList(auth) });
  route('GET /api/talk/messages', {
    access: 'agent',
    handler: ({ auth, query }) => chat.agentMessages(auth, query.YQToken, query),
  });
  route('GET /api/talk/visits', {
    access: 'agent',
    handler: ({ auth, query }) => chat.visits(auth, query.YQToken),
  });
  route('POST /api/talk/send', {
    access: 'agent',
    handler: ({ auth, body }) => chat.agentSend(auth, body),
  });
  route('POST /api/talk/accept', {
    access: 'agent',
    handler: ({ auth, body }) => chat.accept(auth, body.YQToken),
  });
  route('POST /api/talk/transfer', {
    access: 'agent',
    handler: ({ auth, body }) => chat.transfer(auth, body.YQToken, body.serviceID),
  });
  route('POST /api/talk/end', {
    access: 'agent',
    handler: ({ auth, body }) => chat.end(auth, body.YQToken),
  });
  route('POST /api/talk/withdraw', {
    access: 'agent',
    handler: ({ auth, body }) => chat.withdraw(auth, body.YQToken, body.onlyID),
  });
  route('POST /api/talk/monitor', {
    access: 'agent',
    handler: ({ auth, body }) => chat.monitor(auth, body.YQToken),
  });
  route('POST /api/talk/read', {
    access: 'agent',
    handler: ({ auth, body }) => chat.markRead(auth, body.YQToken),
  });
  route('GET /api/talk/agents', { access: 'agent', handler: () => chat.peers() });
  route('GET /api/letter/unreadCount', { access: 'agent', handler: () => chat.unreadLetters() });
}
