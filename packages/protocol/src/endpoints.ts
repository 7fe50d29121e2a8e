import { z } from 'zod';
import { accountEndpoints, type LoginAnswer } from './account.js';
import {
  type Agent,
  deleteBody,
  type HomeOverview,
  type ListData,
  type LoginRecord,
  loginBody,
  type Notice,
  type Role,
  recordListQuery,
  registerBody,
  roleEditBody,
  roleListQuery,
  type SearchSuggestion,
  searchQuery,
  sendCodeQuery,
  serviceEditBody,
  serviceListQuery,
  socialLoginBody,
  type UserInfo,
} from './api.js';
import { apiTokenEndpoints, openApiEndpoints } from './api-tokens.js';
import { auditEndpoints } from './audit.js';
import { backOfficeEndpoints } from './back-office.js';
import { censusEndpoints } from './census.js';
import {
  type AgentPeer,
  agentMessageBody,
  agentMessagesQuery,
  agentStateBody,
  conversationBody,
  handoverBody,
  letterBody,
  type Message,
  messageBody,
  messagesQuery,
  rateBody,
  type TranscriptOffer,
  transferBody,
  type Visit,
  type Visitor,
  type VisitorState,
  visitBody,
  visitorContactBody,
  visitorInitBody,
  type WidgetSettings,
  withdrawBody,
} from './chat.js';
import { type EndpointKey, endpointGroup, methodOf, type Parsed, pathOf, type ResponseOfSpec, returns, type Sent } from './endpoint.js';
import { identityEndpoints } from './identity.js';
import { visitorId } from './ids.js';
import { labelEndpoints } from './labels.js';
import { noteEndpoints } from './notes.js';
import { pushEndpoints } from './push.js';
import { recordEndpoints } from './records.js';
import { robotEndpoints } from './robots.js';
import type { RouteRecord } from './routes.js';
import { settingsEndpoints } from './settings.js';
import { webhookEndpoints } from './webhooks.js';

export * from './endpoint.js';

export interface Saved {
  id: number;
}

export interface VisitorInit {
  /** The visitor's credential: kept by the widget, never shown to agents. */
  YQToken: string;
  /** The visitor's public id, as agents and socket frames name it. */
  id: string;
  state: VisitorState;
  serviceID: string | null;
  settings: WidgetSettings;
  messages: Message[];
}

export interface AgentIndex {
  info: { uuid: string; nickname: string; avatar: string; state: '0' | '1' };
  userVoice: string;
  msgVoice: string;
}

export interface Uploaded {
  url: string;
  name: string;
  size: number;
  type: string;
}

export const visitorIdQuery = z.object({ YQToken: visitorId });

const session = endpointGroup({
  'POST /api/login': { body: loginBody, response: returns<LoginAnswer>() },
  'GET /api/publicKey': { response: returns<{ publicKey: string; mockServer: boolean }>() },
  'GET /api/userInfo': { response: returns<UserInfo>() },
  'GET /api/refreshToken': { response: returns<{ token: string }>() },
  'GET /api/login/logOut': { response: returns<void>() },
  'POST /api/register': { body: registerBody, response: returns<Saved>() },
  'GET /api/sendCode': { query: sendCodeQuery, response: returns<void>() },
  'POST /api/socialLogin': { body: socialLoginBody, response: returns<{ token: string }>() },
});

const management = endpointGroup({
  'GET /api/service/roles': { response: returns<ListData<Role>>() },
  'GET /api/service/getList': { query: serviceListQuery, response: returns<ListData<Agent>>() },
  'POST /api/service/doEdit': { body: serviceEditBody, response: returns<Saved>() },
  'POST /api/service/doDelete': { body: deleteBody, response: returns<void>() },
  'GET /api/role/getList': { query: roleListQuery, response: returns<ListData<Role>>() },
  'POST /api/role/doEdit': { body: roleEditBody, response: returns<Saved>() },
  'POST /api/role/doDelete': { body: deleteBody, response: returns<void>() },
  'GET /api/record/getList': { query: recordListQuery, response: returns<ListData<LoginRecord>>() },
});

const navigation = endpointGroup({
  'GET /api/router/getList': { response: returns<{ list: RouteRecord[] }>() },
  'GET /api/search/getList': { query: searchQuery, response: returns<{ list: SearchSuggestion[] }>() },
  'GET /api/notice/getList': { response: returns<ListData<Notice>>() },
  'GET /api/letter/unreadCount': { response: returns<number>() },
  'GET /api/home/overview': { response: returns<HomeOverview>() },
});

/** CONTRACT §5: no agent token; the YQToken is the visitor's credential. */
const visitor = endpointGroup({
  'POST /api/visitor/init': { body: visitorInitBody, response: returns<VisitorInit>() },
  'POST /api/visitor/message': { body: messageBody, response: returns<Message>() },
  'POST /api/visitor/visit': { body: visitBody, response: returns<void>() },
  'GET /api/visitor/messages': { query: messagesQuery, response: returns<{ list: Message[] }>() },
  'POST /api/visitor/letter': { body: letterBody, response: returns<Saved>() },
  'POST /api/visitor/rate': { body: rateBody, response: returns<void>() },
  /** The pre-chat form's answers (CONTRACT §5 allows more calls): name, phone and email of the visitor. */
  'POST /api/visitor/contact': { body: visitorContactBody, response: returns<{ transcript: TranscriptOffer }>() },
  /** The visitor asks the robot for a person: the queue or an agent, as a new conversation would go. */
  'POST /api/visitor/handover': { body: handoverBody, response: returns<{ state: VisitorState }>() },
  /** Multipart: the file, and the YQToken in the query or a field before the file. */
  'POST /api/visitor/upload': { response: returns<Uploaded>() },
});

/** CONTRACT §4: the workbench; YQToken is the visitor's public id. */
const workbench = endpointGroup({
  'GET /api/index': { response: returns<AgentIndex>() },
  'POST /api/index/state': { body: agentStateBody, response: returns<{ state: '0' | '1' }>() },
  'GET /api/talk/userList': { response: returns<{ list: Visitor[] }>() },
  'GET /api/talk/messages': { query: agentMessagesQuery, response: returns<{ list: Message[] }>() },
  'GET /api/talk/visits': { query: visitorIdQuery, response: returns<{ list: Visit[] }>() },
  'POST /api/talk/send': { body: agentMessageBody, response: returns<Message>() },
  'POST /api/talk/accept': { body: conversationBody, response: returns<Visitor>() },
  'POST /api/talk/transfer': { body: transferBody, response: returns<Visitor>() },
  'POST /api/talk/end': { body: conversationBody, response: returns<Visitor>() },
  'POST /api/talk/withdraw': { body: withdrawBody, response: returns<void>() },
  'POST /api/talk/monitor': { body: conversationBody, response: returns<Visitor>() },
  'POST /api/talk/read': { body: conversationBody, response: returns<void>() },
  'GET /api/talk/agents': { response: returns<{ list: AgentPeer[] }>() },
  /** Multipart: the file. */
  'POST /api/talk/upload': { response: returns<Uploaded>() },
});

/**
 * Every `/api` call of CONTRACT.md: its input schema and the type of its `data`. The server's routes and
 * the console's calls are both declared by a key of this table, so neither re-declares a shape.
 */
export const endpoints = {
  ...session,
  ...management,
  ...navigation,
  ...visitor,
  ...workbench,
  ...noteEndpoints,
  ...recordEndpoints,
  ...backOfficeEndpoints,
  ...settingsEndpoints,
  ...robotEndpoints,
  ...censusEndpoints,
  ...accountEndpoints,
  ...auditEndpoints,
  ...labelEndpoints,
  ...apiTokenEndpoints,
  ...webhookEndpoints,
  ...identityEndpoints,
  ...pushEndpoints,
  ...openApiEndpoints,
};

export type Endpoints = typeof endpoints;
export type Endpoint = keyof Endpoints;
export type GetEndpoint = Extract<Endpoint, `GET ${string}`>;
export type PostEndpoint = Extract<Endpoint, `POST ${string}`>;
export type ResponseOf<K extends Endpoint> = ResponseOfSpec<Endpoints[K]>;
export type QueryOf<K extends Endpoint> = Parsed<Endpoints[K], 'query'>;
export type BodyOf<K extends Endpoint> = Parsed<Endpoints[K], 'body'>;
/** What a client passes: the query of a GET, the body of a POST. */
export type InputOf<K extends Endpoint> = K extends GetEndpoint ? Sent<Endpoints[K], 'query'> : Sent<Endpoints[K], 'body'>;

export function endpointMethod(key: Endpoint) {
  return methodOf(key as EndpointKey);
}
export function endpointPath(key: Endpoint) {
  return pathOf(key as EndpointKey);
}
