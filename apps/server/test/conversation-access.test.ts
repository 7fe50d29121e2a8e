import type { Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, onlyId, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';

let server: TestServer;
let admin: string;

/** A role of the given permissions, and an agent in it who is hidden (gets no conversations). */
async function agentWith(username: string, permissions: string[]): Promise<string> {
  const role = await server.post('/api/role/doEdit', { name: `role-${username}`, permissions }, { token: admin });
  expect(role.status).toBe(200);
  const token = (await createAgent(server, admin, { username, role: `role-${username}` })).token ?? '';
  await server.post('/api/index/state', { state: '1' }, { token });
  return token;
}

/** A visitor talking over HTTP only, so that it is not online once its conversation ends. */
async function offlineVisitor(): Promise<{ credential: string; id: string }> {
  const init = await server.post<{ YQToken: string; id: string }>('/api/visitor/init', { url: 'https://shop.example/help', title: 'Help' });
  return { credential: init.body.data.YQToken, id: init.body.data.id };
}

const reads = (id: string, token: string) =>
  Promise.all([
    server.get(`/api/talk/messages?YQToken=${id}`, { token }).then((response) => response.status),
    server.get(`/api/talk/visits?YQToken=${id}`, { token }).then((response) => response.status),
  ]);

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  await server.post('/api/index/state', { state: '1' }, { token: admin });
});
afterAll(() => server.close());

describe('who reads a visitor whose conversation has ended', () => {
  it('the agents who took part, supervisors and seeHistorical: yes; any other agent: 403', async () => {
    const outsider = await agentWith('outsider', []);
    const historian = await agentWith('historian', ['seePermissions:seeHistorical']);
    const lead = await agentWith('lead', ['setPermissions:service']);
    const participant = await agentWith('participant', []);
    const transferredAway = await agentWith('earlier', []);
    await server.post('/api/index/state', { state: '0' }, { token: transferredAway });
    const earlierSocket = await agentSocket(server, transferredAway);

    const v = await offlineVisitor();
    const asked = await server.post<Message>('/api/visitor/message', {
      YQToken: v.credential,
      msg: 'my order number is 42',
      onlyID: onlyId(),
    });
    expect(asked.status).toBe(200);
    await earlierSocket.until(() => framesOf(earlierSocket, '8006').length > 0);
    // While the conversation is open, only its agent (and supervisors) read it.
    expect(await reads(v.id, outsider)).toEqual([403, 403]);
    const participantUuid = (await server.get<{ info: { uuid: string } }>('/api/index', { token: participant })).body.data.info.uuid;
    // A conversation is only transferred to an agent with a console open.
    const participantSocket = await agentSocket(server, participant);
    await participantSocket.frame('0000');
    expect(
      (await server.post('/api/talk/transfer', { YQToken: v.id, serviceID: participantUuid }, { token: transferredAway })).status,
    ).toBe(200);
    await server.post('/api/index/state', { state: '1' }, { token: transferredAway });
    earlierSocket.close();
    expect((await server.post('/api/talk/send', { YQToken: v.id, msg: 'on it', onlyID: onlyId() }, { token: participant })).status).toBe(
      200,
    );
    expect((await server.post('/api/talk/end', { YQToken: v.id }, { token: participant })).status).toBe(200);

    expect(await reads(v.id, outsider)).toEqual([403, 403]);
    expect(await reads(v.id, participant)).toEqual([200, 200]);
    expect(await reads(v.id, transferredAway)).toEqual([200, 200]);
    expect(await reads(v.id, historian)).toEqual([200, 200]);
    expect(await reads(v.id, lead)).toEqual([200, 200]);
    expect(await reads(v.id, admin)).toEqual([200, 200]);
    participantSocket.close();
    const forbidden = await server.get(`/api/talk/messages?YQToken=${v.id}`, { token: outsider });
    expect(JSON.stringify(forbidden.body)).not.toContain('my order number is 42');
  });

  it('a visitor still online after its conversation ended: its pages follow the same rule as its messages', async () => {
    const stranger = await agentWith('stranger', []);
    const archivist = await agentWith('archivist', ['seePermissions:seeHistorical']);
    const helper = await agentWith('helper', []);
    await server.post('/api/index/state', { state: '0' }, { token: helper });
    const helperSocket = await agentSocket(server, helper);
    const online = await visitor(server, 'https://shop.example/account');
    await online.say('please change my delivery address');
    await helperSocket.until(() => framesOf(helperSocket, '8006').length > 0);
    expect((await server.post('/api/talk/end', { YQToken: online.id }, { token: helper })).status).toBe(200);
    await server.post('/api/index/state', { state: '1' }, { token: helper });

    // The visitor browses on with its socket open: its past conversation stays closed to outsiders.
    expect(await reads(online.id, stranger)).toEqual([403, 403]);
    expect(await reads(online.id, helper)).toEqual([200, 200]);
    expect(await reads(online.id, archivist)).toEqual([200, 200]);
    expect(await reads(online.id, admin)).toEqual([200, 200]);
    const refused = await server.get(`/api/talk/visits?YQToken=${online.id}`, { token: stranger });
    expect(JSON.stringify(refused.body)).not.toContain('/account');
    online.socket.close();
    helperSocket.close();
  });

  it('any agent may read a waiting visitor, and the pages of a visitor browsing now', async () => {
    const bystander = await agentWith('bystander', []);
    // Nobody is available: the visitor waits, and any agent may look before accepting it.
    const waiting = await offlineVisitor();
    await server.post('/api/visitor/message', { YQToken: waiting.credential, msg: 'anyone?', onlyID: onlyId() });
    expect(await reads(waiting.id, bystander)).toEqual([200, 200]);
    // A visitor online now with no conversation: its pages are there to greet it by.
    const browsing = await server.post<{ YQToken: string; id: string }>('/api/visitor/init', { url: 'https://shop.example/' });
    const socket = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${browsing.body.data.YQToken}`);
    const visits = await server.get(`/api/talk/visits?YQToken=${browsing.body.data.id}`, { token: bystander });
    expect(visits.status).toBe(200);
    socket.close();
  });
});
