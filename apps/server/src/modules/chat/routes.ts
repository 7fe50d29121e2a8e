import {
  agentMessageBody,
  agentMessagesQuery,
  agentStateBody,
  conversationBody,
  letterBody,
  messageBody,
  messagesQuery,
  rateBody,
  transferBody,
  visitBody,
  visitorInitBody,
  withdrawBody,
} from '@parley/protocol';
import { z } from 'zod';
import { clientMeta, type DefineRoute } from '../../lib/http.js';
import type { ChatService } from './service.js';

const visitorIdQuery = z.object({ YQToken: agentMessagesQuery.shape.YQToken });

/** The visitor API: no agent token; the YQToken handed out by init is the visitor's credential. */
export function visitorRoutes(route: DefineRoute, chat: ChatService): void {
  route({
    method: 'POST',
    url: '/api/visitor/init',
    access: 'public',
    limit: 'visitorInit',
    body: visitorInitBody,
    handler: ({ body, req }) => chat.init(body, clientMeta(req)),
  });
  route({
    method: 'POST',
    url: '/api/visitor/message',
    access: 'public',
    limit: 'visitorMessage',
    body: messageBody,
    handler: ({ body }) => chat.visitorMessage(body.YQToken, body),
  });
  route({
    method: 'POST',
    url: '/api/visitor/visit',
    access: 'public',
    limit: 'visitorVisit',
    body: visitBody,
    handler: async ({ body }) => {
      await chat.visit(body.YQToken, body.url, body.title ?? '');
      return null;
    },
  });
  route({
    method: 'GET',
    url: '/api/visitor/messages',
    access: 'public',
    limit: 'visitorMessages',
    query: messagesQuery,
    handler: ({ query }) => chat.visitorMessages(query.YQToken, query.afterSeq),
  });
  route({
    method: 'POST',
    url: '/api/visitor/letter',
    access: 'public',
    limit: 'visitorLetter',
    body: letterBody,
    handler: ({ body, req }) => chat.letter(body, req.ip),
  });
  route({
    method: 'POST',
    url: '/api/visitor/rate',
    access: 'public',
    limit: 'visitorRate',
    body: rateBody,
    handler: async ({ body }) => {
      await chat.rate(body.YQToken, body.score, body.comment);
      return null;
    },
  });
}

/** The workbench API of agents: YQToken is the visitor's public id, never its credential. */
export function talkRoutes(route: DefineRoute, chat: ChatService): void {
  route({ method: 'GET', url: '/api/index', access: 'agent', handler: ({ auth }) => chat.agentIndex(auth) });
  route({
    method: 'POST',
    url: '/api/index/state',
    access: 'agent',
    body: agentStateBody,
    handler: ({ auth, body }) => chat.setAgentState(auth, body.state),
  });
  route({ method: 'GET', url: '/api/talk/userList', access: 'agent', handler: ({ auth }) => chat.userList(auth) });
  route({
    method: 'GET',
    url: '/api/talk/messages',
    access: 'agent',
    query: agentMessagesQuery,
    handler: ({ auth, query }) => chat.agentMessages(auth, query.YQToken, query),
  });
  route({
    method: 'GET',
    url: '/api/talk/visits',
    access: 'agent',
    query: visitorIdQuery,
    handler: ({ auth, query }) => chat.visits(auth, query.YQToken),
  });
  route({
    method: 'POST',
    url: '/api/talk/send',
    access: 'agent',
    body: agentMessageBody,
    handler: ({ auth, body }) => chat.agentSend(auth, body),
  });
  route({
    method: 'POST',
    url: '/api/talk/accept',
    access: 'agent',
    body: conversationBody,
    handler: ({ auth, body }) => chat.accept(auth, body.YQToken),
  });
  route({
    method: 'POST',
    url: '/api/talk/transfer',
    access: 'agent',
    body: transferBody,
    handler: ({ auth, body }) => chat.transfer(auth, body.YQToken, body.serviceID),
  });
  route({
    method: 'POST',
    url: '/api/talk/end',
    access: 'agent',
    body: conversationBody,
    handler: ({ auth, body }) => chat.end(auth, body.YQToken),
  });
  route({
    method: 'POST',
    url: '/api/talk/withdraw',
    access: 'agent',
    body: withdrawBody,
    handler: ({ auth, body }) => chat.withdraw(auth, body.YQToken, body.onlyID),
  });
  route({
    method: 'POST',
    url: '/api/talk/monitor',
    access: 'agent',
    body: conversationBody,
    handler: ({ auth, body }) => chat.monitor(auth, body.YQToken),
  });
  route({
    method: 'POST',
    url: '/api/talk/read',
    access: 'agent',
    body: conversationBody,
    handler: ({ auth, body }) => chat.markRead(auth, body.YQToken),
  });
  route({ method: 'GET', url: '/api/talk/agents', access: 'agent', handler: () => chat.peers() });
  route({ method: 'GET', url: '/api/letter/unreadCount', access: 'agent', handler: () => chat.unreadLetters() });
}
