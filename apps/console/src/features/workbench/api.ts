import type { MessageType, Uploaded } from '@parley/protocol';
import { call } from '../../lib/api';
import { HttpError } from '../../lib/http';
import { useSession } from '../../stores/session';

// Conversation actions answer 403/409 when someone else was quicker: the caller explains, no redirect to /403.
const quiet = { silent: true };

/** The workbench API (CONTRACT §4). */
export const workbenchApi = {
  index: () => call('GET /api/index'),
  setState: (state: '0' | '1') => call('POST /api/index/state', { state }),
  userList: () => call('GET /api/talk/userList', undefined, quiet),
  messages: (YQToken: string, range: { afterSeq?: number; beforeSeq?: number; limit?: number } = {}) =>
    call('GET /api/talk/messages', { YQToken, ...range }, quiet),
  visits: (YQToken: string) => call('GET /api/talk/visits', { YQToken }, quiet),
  send: (body: { YQToken: string; msg: string; onlyID: string; type: MessageType; assist?: number }) =>
    call('POST /api/talk/send', body, quiet),
  accept: (YQToken: string) => call('POST /api/talk/accept', { YQToken }, quiet),
  transfer: (YQToken: string, serviceID: string) => call('POST /api/talk/transfer', { YQToken, serviceID }, quiet),
  end: (YQToken: string) => call('POST /api/talk/end', { YQToken }, quiet),
  monitor: (YQToken: string) => call('POST /api/talk/monitor', { YQToken }, quiet),
  withdraw: (YQToken: string, onlyID: string) => call('POST /api/talk/withdraw', { YQToken, onlyID }, quiet),
  read: (YQToken: string) => call('POST /api/talk/read', { YQToken }, quiet),
  agents: () => call('GET /api/talk/agents', undefined, quiet),
  labels: () => call('GET /api/talk/labels', undefined, quiet),
  setLabels: (YQToken: string, labelIds: number[]) => call('POST /api/talk/labels', { YQToken, labelIds }, quiet),
  labelList: () => call('GET /api/label/getList', { pageNo: 1, pageSize: 100 }, quiet),
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
    await call('GET /api/index', undefined, quiet);
    response = await postFile(file, useSession.getState().token);
  }
  const payload = (await response.json().catch(() => null)) as { code?: number; msg?: string; data?: Uploaded } | null;
  if (!response.ok || payload?.code !== 200 || !payload.data)
    throw new HttpError(payload?.code ?? response.status, payload?.msg ?? response.statusText);
  return payload.data;
}
