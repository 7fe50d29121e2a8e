import type { AgentPeer, Message, MessageType, Visit, Visitor } from '@parley/protocol';
import { HttpError } from '../../lib/http';
import { http } from '../../lib/request';
import { useSession } from '../../stores/session';

export interface IndexInfo {
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

/** Typed calls of the workbench API (CONTRACT §4). */
export const workbenchApi = {
  index: () => http.get<IndexInfo>('/api/index'),
  setState: (state: '0' | '1') => http.post<{ state: '0' | '1' }>('/api/index/state', { state }),
  userList: () => http.get<{ list: Visitor[] }>('/api/talk/userList', { silent: true }),
  messages: (YQToken: string, range: { afterSeq?: number; beforeSeq?: number; limit?: number } = {}) =>
    http.get<{ list: Message[] }>('/api/talk/messages', { params: { YQToken, ...range }, silent: true }),
  visits: (YQToken: string) => http.get<{ list: Visit[] }>('/api/talk/visits', { params: { YQToken }, silent: true }),
  // Conversation actions answer 403/409 when someone else was quicker: the caller explains, no redirect to /403.
  send: (body: { YQToken: string; msg: string; onlyID: string; type: MessageType }) =>
    http.post<Message>('/api/talk/send', body, { silent: true }),
  accept: (YQToken: string) => http.post<Visitor>('/api/talk/accept', { YQToken }, { silent: true }),
  transfer: (YQToken: string, serviceID: string) => http.post<Visitor>('/api/talk/transfer', { YQToken, serviceID }, { silent: true }),
  end: (YQToken: string) => http.post<Visitor>('/api/talk/end', { YQToken }, { silent: true }),
  monitor: (YQToken: string) => http.post<Visitor>('/api/talk/monitor', { YQToken }, { silent: true }),
  withdraw: (YQToken: string, onlyID: string) => http.post<null>('/api/talk/withdraw', { YQToken, onlyID }, { silent: true }),
  read: (YQToken: string) => http.post<null>('/api/talk/read', { YQToken }, { silent: true }),
  agents: () => http.get<{ list: AgentPeer[] }>('/api/talk/agents', { silent: true }),
};

async function postFile(file: File, token: string): Promise<Response> {
  const form = new FormData();
  form.append('file', file, file.name);
  return fetch('/api/talk/upload', { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
}

/**
 * Multipart upload, outside the JSON client. An expired token is refreshed by a cheap call through
 * the client (which owns the one shared refresh), then the upload is sent once more.
 */
export async function uploadFile(file: File): Promise<Uploaded> {
  let response = await postFile(file, useSession.getState().token);
  if (response.status === 402) {
    await http.get('/api/index', { silent: true });
    response = await postFile(file, useSession.getState().token);
  }
  const payload = (await response.json().catch(() => null)) as { code?: number; msg?: string; data?: Uploaded } | null;
  if (!response.ok || payload?.code !== 200 || !payload.data)
    throw new HttpError(payload?.code ?? response.status, payload?.msg ?? response.statusText);
  return payload.data;
}
