import type { Message, Visitor } from '@parley/protocol';
import type { TestServer } from './harness.js';
import { TestSocket } from './sockets.js';

let counter = 0;
export function onlyId(): string {
  counter += 1;
  return `m-${Date.now().toString(36)}-${counter}`;
}

export interface TestVisitor {
  /** The visitor's credential (init's YQToken): for the visitor API and socket only. */
  credential: string;
  /** The visitor's public id (init's id): what agents see as YQToken and name it by. */
  id: string;
  socket: TestSocket;
  say(msg: string, id?: string): Promise<Message>;
}

/** A visitor as the widget makes one: init, then its socket. */
export async function visitor(
  server: TestServer,
  url = 'https://shop.example/pricing',
  extra: Record<string, unknown> = {},
): Promise<TestVisitor> {
  const init = await server.post<{ YQToken: string; id: string }>('/api/visitor/init', {
    url,
    title: 'Pricing',
    referrer: 'https://www.google.com/search?q=chat+tool',
    lang: 'en',
    ...extra,
  });
  if (init.status !== 200) throw new Error(`init failed: ${init.body.msg}`);
  const credential = init.body.data.YQToken;
  const socket = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${credential}`);
  return {
    credential,
    id: init.body.data.id,
    socket,
    async say(msg, id = onlyId()) {
      const response = await server.post<Message>('/api/visitor/message', { YQToken: credential, msg, onlyID: id });
      if (response.status !== 200) throw new Error(`visitor message failed: ${response.status} ${response.body.msg}`);
      return response.body.data;
    },
  };
}

/** An agent's console socket, answered with the 5000 handshake. */
export async function agentSocket(server: TestServer, token: string): Promise<TestSocket> {
  const socket = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/agent?token=${token}`);
  await socket.frame('0000');
  socket.send({ code: '5000', type: 'service', uuid: '' });
  return socket;
}

export async function uuidOf(server: TestServer, token: string): Promise<string> {
  const index = await server.get<{ info: { uuid: string } }>('/api/index', { token });
  return index.body.data.info.uuid;
}

export function framesOf(socket: TestSocket, code: string) {
  return socket.frames.filter((frame) => (frame as { code: string }).code === code) as {
    code: string;
    recipient?: string;
    data: unknown;
  }[];
}

export type { Visitor };
