import type { Conversation, ConversationDetail, Message, Note, Notice, VisitorInit } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, onlyId, type TestVisitor, uuidOf, visitor } from './chat-harness.js';
import { configure, createAgent, startTestServer, type TestServer } from './harness.js';
import { type ReceivedMail, smtpListener } from './smtp.js';
import type { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

/**
 * Internal notes: the conversation's agent and its monitors get them, the agent a note mentions is told
 * and may read the conversation; the visitor never sees one, in any way it reads its conversation.
 */
let smtp: Awaited<ReturnType<typeof smtpListener>>;
let server: TestServer;
let admin: string;
const sockets: TestSocket[] = [];
/** The agents made available, to hide them again when a later test wants another to take its visitor. */
const takers: string[] = [];

/** A plain agent (no permissions) of this username, with a console open; `online` takes conversations. */
async function agent(username: string, permissions: string[], online: boolean) {
  const role = `role-${username}`;
  expect((await server.post('/api/role/doEdit', { name: role, permissions }, { token: admin })).status).toBe(200);
  const token = (await createAgent(server, admin, { username, role })).token ?? '';
  await server.post('/api/index/state', { state: online ? '0' : '1' }, { token });
  if (online) takers.push(token);
  const socket = await agentSocket(server, token);
  sockets.push(socket);
  return { token, socket, uuid: await uuidOf(server, token) };
}

/** The mail's text as a reader sees it: quoted-printable soft breaks and escapes undone. */
function readable(mail: ReceivedMail): string {
  return mail.raw
    .replace(/=\r?\n/g, '')
    .replace(/(?:=[0-9A-F]{2})+/g, (run) => Buffer.from(run.replaceAll('=', ''), 'hex').toString('utf8'));
}

/** A visitor whose address is proved (so its transcript is mailed), talking to whoever is online. */
async function mailedVisitor(email: string): Promise<TestVisitor> {
  const v = await visitor(server, 'https://shop.example/');
  const given = await server.post<{ transcript: string }>('/api/visitor/contact', { YQToken: v.credential, name: 'Ann', email });
  expect(given.body.data.transcript).toBe('sent');
  await waitFor(() => smtp.mails.some((mail) => mail.to.includes(email)), 10_000, 'the confirmation mail');
  const mail = smtp.mails.find((m) => m.to.includes(email));
  const token = mail && /\/mail\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(readable(mail))?.[1];
  const confirmed = await fetch(`${server.url}/mail/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${token}`,
  });
  expect(confirmed.status).toBe(200);
  return v;
}

const NOTE = 'VIP "gold", refund ok — ask @mate before shipping';

beforeAll(async () => {
  smtp = await smtpListener();
  server = await startTestServer();
  admin = await server.login();
  await server.post('/api/index/state', { state: '1' }, { token: admin });
  await configure(server, admin, 'autoAnswer', { greeting: '' });
  await configure(server, admin, 'softwareSetting', {
    siteName: 'Shop',
    smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', password: 'mail-pass', from: 'desk@shop.example', to: [] },
  });
  await configure(server, admin, 'appSetting', { transcriptEmail: true });
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await server.close();
  await smtp.close();
});

describe('an internal note', () => {
  it('reaches the agent, its monitors and the mentioned agent; never the visitor, its mail or the unmentioned', async () => {
    const owner = await agent('owner', [], true);
    const lead = await agent('lead', ['setPermissions:service'], false);
    const mate = await agent('mate', [], false);
    const outsider = await agent('outsider', [], false);

    const v = await mailedVisitor('ann@example.com');
    const asked = await v.say('Where is my parcel?');
    await owner.socket.until(() => framesOf(owner.socket, '8006').length > 0);
    expect((await server.post('/api/talk/monitor', { YQToken: v.id }, { token: lead.token })).status).toBe(200);
    const answered = await server.post<Message>(
      '/api/talk/send',
      { YQToken: v.id, msg: 'Looking now', onlyID: onlyId() },
      { token: owner.token },
    );
    expect(answered.status).toBe(200);

    const id = onlyId();
    const added = await server.post<Note>('/api/talk/note', { YQToken: v.id, msg: NOTE, onlyID: id }, { token: owner.token });
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({ YQToken: v.id, msg: NOTE, nickname: 'owner', serviceID: owner.uuid, mentions: [mate.uuid] });
    expect(added.body.data.afterSeq).toBe(answered.body.data.seq);
    // Idempotent on onlyID: a resend answers the stored note and tells nobody again.
    const again = await server.post<Note>('/api/talk/note', { YQToken: v.id, msg: NOTE, onlyID: id }, { token: owner.token });
    expect(again.body.data.id).toBe(added.body.data.id);

    // The conversation's agent and the monitoring supervisor get it as a note frame.
    for (const reader of [owner, lead]) {
      const frame = await reader.socket.until(() => framesOf(reader.socket, '8014')[0]);
      expect(frame.data).toMatchObject({ msg: NOTE, YQToken: v.id });
    }
    // Only the mentioned agent is told of the mention, with a notice that opens the conversation.
    const mention = await mate.socket.until(() => framesOf(mate.socket, '8015')[0]);
    expect(mention.data).toMatchObject({ note: { msg: NOTE, conversationId: added.body.data.conversationId }, visitor: 'Ann' });
    const notices = await server.get<{ list: Notice[] }>('/api/notice/getList', { token: mate.token });
    expect(notices.body.data.list).toContainEqual(
      expect.objectContaining({ kind: 'mention', url: `#/history/historyDetail?id=${added.body.data.conversationId}` }),
    );
    for (const other of [owner, lead, outsider]) await other.socket.barrier();
    expect(framesOf(owner.socket, '8015')).toEqual([]);
    expect(framesOf(outsider.socket, '8014')).toEqual([]);
    expect(framesOf(outsider.socket, '8015')).toEqual([]);
    expect(framesOf(mate.socket, '8014')).toEqual([]);
    expect((await server.get<{ list: Notice[] }>('/api/notice/getList', { token: outsider.token })).body.data.list).toEqual([]);

    // The workbench reads the notes beside the messages; an agent who may not read the visitor may not read them.
    const listed = await server.get<{ list: Note[] }>(`/api/talk/notes?YQToken=${v.id}`, { token: lead.token });
    expect(listed.body.data.list.map((note) => note.msg)).toEqual([NOTE]);
    expect((await server.get(`/api/talk/notes?YQToken=${v.id}`, { token: outsider.token })).status).toBe(403);

    // The next message takes the next seq: the note left no gap for the visitor to chase.
    const after = await server.post<Message>(
      '/api/talk/send',
      { YQToken: v.id, msg: 'Found it', onlyID: onlyId() },
      { token: owner.token },
    );
    expect(after.body.data.seq).toBe(answered.body.data.seq + 1);
    await v.socket.until(() => framesOf(v.socket, '8005').some((f) => (f.data as Message).msg === 'Found it'));
    await v.socket.barrier();
    expect(v.socket.texts.join('\n')).not.toContain('refund ok');
    const messages = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}`);
    const caughtUp = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}&afterSeq=0`);
    const init = await server.post<VisitorInit>('/api/visitor/init', { YQToken: v.credential, url: 'https://shop.example/' });
    for (const list of [messages.body.data.list, caughtUp.body.data.list, init.body.data.messages]) {
      expect(JSON.stringify(list)).not.toContain('refund ok');
      expect(list.map((m) => m.seq)).toEqual(list.map((_, at) => (list[0]?.seq ?? 0) + at));
      expect(list.map((m) => m.msg)).toEqual(expect.arrayContaining([asked.msg, 'Looking now', 'Found it']));
    }

    // The transcript mailed when the conversation ends has its messages and not the note.
    smtp.mails.length = 0;
    expect((await server.post('/api/talk/end', { YQToken: v.id }, { token: owner.token })).status).toBe(200);
    await waitFor(() => smtp.mails.some((mail) => /Subject: Your conversation with Shop/.test(readable(mail))), 10_000, 'the transcript');
    const transcript = smtp.mails.map(readable).join('\n');
    expect(transcript).toContain('Found it');
    expect(transcript).not.toContain('refund ok');

    // History: the detail carries the note, marked as one; the mentioned agent reads it, an unmentioned plain agent does not.
    const conversationId = added.body.data.conversationId;
    for (const token of [admin, mate.token]) {
      const detail = await server.get<ConversationDetail>(`/api/history/detail?id=${conversationId}`, { token });
      expect(detail.status).toBe(200);
      expect(detail.body.data.notes).toEqual([expect.objectContaining({ msg: NOTE, nickname: 'owner', mentions: [mate.uuid] })]);
      expect(JSON.stringify(detail.body.data.messages)).not.toContain('refund ok');
    }
    const hidden = await server.get(`/api/history/detail?id=${conversationId}`, { token: outsider.token });
    expect(hidden.status).toBe(403);
    expect(JSON.stringify(hidden.body)).not.toContain('refund ok');
    // Mentioned, the agent lists the conversation and reads the visitor's messages; the outsider still does not.
    const mates = await server.get<{ list: Conversation[] }>('/api/history/getList?pageNo=1&pageSize=10', { token: mate.token });
    expect(mates.body.data.list.map((row) => row.id)).toEqual([conversationId]);
    expect((await server.get(`/api/talk/messages?YQToken=${v.id}`, { token: mate.token })).status).toBe(200);
    expect((await server.get(`/api/talk/messages?YQToken=${v.id}`, { token: outsider.token })).status).toBe(403);

    // The export's notes column: marked, with time and author, escaped as a CSV cell.
    const csv = await (
      await fetch(`${server.url}/api/history/export`, { headers: { authorization: `Bearer ${admin}`, 'accept-language': 'en' } })
    ).text();
    const [header] = csv.split('\n');
    expect(header).toContain('Internal notes');
    expect(csv).toMatch(/"\[Note \d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})? owner\] VIP ""gold"", refund ok — ask @mate before shipping"/);
    v.socket.close();
  });
});

describe('POST /api/talk/note', () => {
  it('refuses bad input naming the field, other agents’ conversations, and someone else’s onlyID', async () => {
    const holder = await agent('holder', [], true);
    const other = await agent('other', [], false);
    // Only `holder` takes conversations now.
    for (const token of takers.filter((token) => token !== holder.token)) await server.post('/api/index/state', { state: '1' }, { token });
    const v = await visitor(server);
    await v.say('hello');
    await holder.socket.until(() => framesOf(holder.socket, '8006').length > 0);

    const post = (body: Record<string, unknown>, token = holder.token) => server.post('/api/talk/note', body, { token });
    const empty = await post({ YQToken: v.id, msg: '', onlyID: onlyId() });
    expect(empty.status).toBe(400);
    expect(empty.body.msg).toContain('msg');
    const long = await post({ YQToken: v.id, msg: 'x'.repeat(5001), onlyID: onlyId() });
    expect(long.status).toBe(400);
    expect(long.body.msg).toContain('msg');
    const badId = await post({ YQToken: v.id, msg: 'ok', onlyID: 'not an id!' });
    expect(badId.status).toBe(400);
    expect(badId.body.msg).toContain('onlyID');
    const noVisitor = await post({ msg: 'ok', onlyID: onlyId() });
    expect(noVisitor.status).toBe(400);
    expect(noVisitor.body.msg).toContain('YQToken');

    // Not the conversation's agent nor a supervisor: 403, and nothing is stored or told.
    const refused = await post({ YQToken: v.id, msg: 'sneaky', onlyID: onlyId() }, other.token);
    expect(refused.status).toBe(403);
    // An onlyID the holder used is not someone else's to take (a supervisor, here): 409.
    const id = onlyId();
    expect((await post({ YQToken: v.id, msg: 'mine', onlyID: id })).status).toBe(200);
    expect((await post({ YQToken: v.id, msg: 'theirs', onlyID: id }, admin)).status).toBe(409);
    // A supervisor writes on anyone's conversation.
    expect((await post({ YQToken: v.id, msg: 'from the lead', onlyID: onlyId() }, admin)).status).toBe(200);
    const notes = await server.get<{ list: Note[] }>(`/api/talk/notes?YQToken=${v.id}`, { token: holder.token });
    expect(notes.body.data.list.map((note) => note.msg)).toEqual(['mine', 'from the lead']);
    expect(
      (await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}`)).body.data.list.map((m) => m.msg),
    ).toEqual(['hello']);
    v.socket.close();
  });
});
