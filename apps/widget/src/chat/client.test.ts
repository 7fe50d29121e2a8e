import type { Frame, Message, WidgetSettings } from '@parley/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatClient, type Socket } from './client';
import { type Api, ApiError } from './lib/api';
import { translator } from './lib/i18n';
import { storedMessage } from './lib/messages.fixture';
import { widgetSettings } from './lib/settings.fixture';
import type { SocketHandlers } from './lib/socket';

const TOKEN = 'visitor-token-0123456789abcdef';

const stored = (seq: number, extra: Partial<Message> = {}): Message => storedMessage(seq, { YQToken: TOKEN, ...extra });

/** A server stand-in: answers what the test queues, records every call. */
function fakeServer() {
  const calls: { method: 'get' | 'post' | 'upload'; path: string; body: unknown }[] = [];
  let seq = 0;
  const history: Message[] = [];
  const failures: ApiError[] = [];
  const api: Api = {
    get: async <T>(path: string, query: Record<string, string | number>) => {
      calls.push({ method: 'get', path, body: query });
      return { list: history.filter((message) => message.seq > Number(query.afterSeq ?? 0)) } as T;
    },
    post: async <T>(path: string, body: unknown) => {
      calls.push({ method: 'post', path, body });
      if (path === '/api/visitor/init')
        return {
          YQToken: TOKEN,
          id: 'visitor-public-id-0001',
          state: 'end',
          serviceID: null,
          settings: widgetSettings(),
          messages: history.slice(-50),
        } as T;
      if (path === '/api/visitor/message') {
        const failure = failures.shift();
        if (failure) throw failure;
        const { msg, onlyID, type } = body as { msg: string; onlyID: string; type: Message['type'] };
        const existing = history.find((message) => message.onlyID === onlyID);
        if (existing) return existing as T;
        const message = stored(++seq, { role: 'user', msg, onlyID, type, nickname: 'Visitor' });
        history.push(message);
        return message as T;
      }
      if (path === '/api/visitor/contact') return { transcript: (body as { email?: string }).email ? 'sent' : 'none' } as T;
      return null as T;
    },
    upload: async <T>() => {
      throw new ApiError(404, 'not found') as T;
    },
  };
  return {
    api,
    calls,
    history,
    failures,
    /** A message stored by someone else (an agent): it takes the next seq. */
    agentSays(msg: string): Message {
      const message = stored(++seq, { msg, onlyID: `agent-${seq}` });
      history.push(message);
      return message;
    },
    sent: () => calls.filter((call) => call.path === '/api/visitor/message').map((call) => call.body as { msg: string; onlyID: string }),
  };
}

function setup(now: () => number = Date.now) {
  const server = fakeServer();
  let handlers: SocketHandlers | undefined;
  const frames: Frame[] = [];
  const socket: Socket = { start: () => {}, stop: () => {}, send: (frame) => frames.push(frame) > 0 };
  const unread: number[] = [];
  const previews: (string | undefined)[] = [];
  const looks: WidgetSettings[] = [];
  const client = new ChatClient({
    api: server.api,
    t: translator('en'),
    lang: 'en',
    site: 'https://shop.example',
    page: { url: 'https://shop.example/', title: 'Shop', referrer: '' },
    onUnread: (count, preview) => {
      unread.push(count);
      previews.push(preview);
    },
    onSettings: (settings) => looks.push(settings),
    onToken: () => {},
    now,
    createSocket: (_url, given) => {
      handlers = given;
      return socket;
    },
  });
  const push = (frame: Frame) => {
    if (!handlers) throw new Error('socket not created');
    handlers.onFrame(frame);
  };
  const reopen = () => handlers?.onOpen(true);
  const connected = (value: boolean) => handlers?.onConnectedChange(value);
  return { server, client, push, reopen, connected, frames, unread, previews, looks };
}

describe('ChatClient', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows a message at once, then replaces it with the stored copy', async () => {
    const { client } = setup();
    await client.init();
    client.sendText('  hello  ');
    expect(client.state.items).toMatchObject([{ seq: 0, msg: 'hello', status: 'sending' }]);
    await vi.runAllTimersAsync();
    expect(client.state.items).toHaveLength(1);
    expect(client.state.items[0]).toMatchObject({ seq: 1, msg: 'hello' });
    expect(client.state.items[0]?.status).toBeUndefined();
  });

  it('sends over the open socket (8100), takes the 8101 as stored, and falls back to HTTP once it drops', async () => {
    const { server, client, push, connected, frames } = setup();
    await client.init();
    connected(true);
    client.sendText('over the socket');
    await vi.advanceTimersByTimeAsync(0);
    const sent = frames.find((frame) => frame.code === '8100') as { data: { msg: string; onlyID: string } } | undefined;
    expect(sent?.data.msg).toBe('over the socket');
    const onlyID = sent?.data.onlyID ?? '';
    push({ code: '8101', data: stored(1, { role: 'user', msg: 'over the socket', onlyID }) });
    await vi.advanceTimersByTimeAsync(0);
    expect(client.state.items[0]).toMatchObject({ seq: 1, msg: 'over the socket' });
    expect(server.sent()).toEqual([]);
    client.sendText('while it drops');
    await vi.advanceTimersByTimeAsync(0);
    connected(false);
    await vi.runAllTimersAsync();
    expect(server.sent().map((body) => body.msg)).toEqual(['while it drops']);
  });

  it('retries a failed send with the same onlyID until acknowledged, and keeps the order', async () => {
    const { client, server } = setup();
    await client.init();
    server.failures.push(new ApiError(0, ''), new ApiError(500, 'boom'));
    client.sendText('first');
    client.sendText('second');
    await vi.advanceTimersByTimeAsync(0);
    expect(client.state.items[0]).toMatchObject({ msg: 'first', status: 'failed' });
    expect(server.sent().map((body) => body.msg)).toEqual(['first']);
    await vi.runAllTimersAsync();
    const attempts = server.sent();
    expect(attempts.map((body) => body.msg)).toEqual(['first', 'first', 'first', 'second']);
    expect(new Set(attempts.slice(0, 3).map((body) => body.onlyID)).size).toBe(1);
    expect(client.state.items.map((item) => [item.seq, item.msg, item.status])).toEqual([
      [1, 'first', undefined],
      [2, 'second', undefined],
    ]);
  });

  it('marks a refused message failed, moves on, and sends it again from the retry control', async () => {
    const { client, server } = setup();
    await client.init();
    server.failures.push(new ApiError(400, 'msg: too long'));
    client.sendText('refused');
    client.sendText('next');
    await vi.runAllTimersAsync();
    const refused = client.state.items.find((item) => item.msg === 'refused');
    expect(refused).toMatchObject({ status: 'failed', error: 'msg: too long', seq: 0 });
    expect(client.state.items.find((item) => item.msg === 'next')?.seq).toBe(1);
    client.retry(refused?.onlyID ?? '');
    await vi.runAllTimersAsync();
    expect(client.state.items.find((item) => item.msg === 'refused')).toMatchObject({ seq: 2 });
    expect(
      server
        .sent()
        .filter((body) => body.msg === 'refused')
        .map((body) => body.onlyID),
    ).toEqual([refused?.onlyID, refused?.onlyID]);
  });

  it('explains a missing upload endpoint', async () => {
    const { client } = setup();
    await client.init();
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:preview' }));
    client.sendFile(new File(['x'], 'photo.png', { type: 'image/png' }));
    await vi.runAllTimersAsync();
    expect(client.state.items[0]).toMatchObject({
      type: 'image',
      status: 'failed',
      error: 'Sending files is not available on this server.',
    });
    vi.unstubAllGlobals();
  });

  it('catches up after a gap in seq and after a reconnect, never holding a message twice', async () => {
    const { client, server, push, reopen } = setup();
    await client.init();
    const one = server.agentSays('one');
    push({ code: '8005', data: one });
    server.agentSays('two');
    const three = server.agentSays('three');
    push({ code: '8005', data: three });
    await vi.runAllTimersAsync();
    expect(client.state.items.map((item) => item.msg)).toEqual(['one', 'two', 'three']);
    server.agentSays('four');
    reopen();
    await vi.runAllTimersAsync();
    push({ code: '8005', data: three });
    expect(client.state.items.map((item) => item.seq)).toEqual([1, 2, 3, 4]);
  });

  it('counts unread agent messages only while the window is not seen', async () => {
    const { client, server, push, unread } = setup();
    await client.init();
    push({ code: '8005', data: server.agentSays('hello?') });
    expect(client.state.unread).toBe(1);
    client.setVisible(true);
    expect(client.state.unread).toBe(0);
    push({ code: '8005', data: server.agentSays('seen at once') });
    expect(client.state.unread).toBe(0);
    expect(unread).toEqual([1, 0]);
  });

  it('counts as unread an answer shown after the host page closed the window, when the close is heard of late', async () => {
    let clock = 1_000;
    const { client, server, push, unread, previews } = setup(() => clock);
    await client.init();
    client.setVisible(true);
    push({ code: '8005', data: server.agentSays('seen before the close') });
    clock = 2_000;
    push({ code: '8005', data: server.agentSays('arrived after the close') });
    expect(client.state.unread).toBe(0);
    // The host page closed the window at 1,500; the frame hears of it only now.
    client.setVisible(false, 1_500);
    expect(client.state.unread).toBe(1);
    expect(unread).toEqual([1]);
    expect(previews).toEqual(['arrived after the close']);
    // Opened and closed again in time: nothing shown meanwhile counts twice.
    client.setVisible(true, 2_100);
    client.setVisible(false, 2_200);
    expect(client.state.unread).toBe(0);
    expect(unread).toEqual([1, 0]);
  });

  it('tells the loader the newest unread message, for the closed window’s launcher to preview', async () => {
    const { client, server, push, unread, previews } = setup();
    await client.init();
    push({ code: '8005', data: server.agentSays('first') });
    push({ code: '8005', data: server.agentSays('Two left in stock') });
    expect(unread).toEqual([1, 2]);
    expect(previews).toEqual(['first', 'Two left in stock']);
  });

  it('follows the conversation state frames and asks for a rating when told to', async () => {
    const { client, server, push } = setup();
    await client.init();
    push({ code: '2001', data: { position: 3 } });
    expect(client.state).toMatchObject({ conversation: 'wait', position: 3 });
    push({ code: '2000', data: { serviceID: 'x', nickname: 'Alice', avatar: '' } });
    expect(client.state).toMatchObject({ conversation: 'current', position: null, agent: { name: 'Alice' } });
    push({ code: '8005', data: server.agentSays('bye') });
    push({ code: '2004', data: { rate: true } });
    expect(client.state.rating).toEqual({ afterSeq: 1, done: false });
    push({ code: '2015', data: { onlyID: 'agent-1' } });
    expect(client.state.items[0]?.withdrawn).toBe(true);
  });

  it('loads earlier messages page by page when the window starts with the last ones', async () => {
    const { client, server } = setup();
    for (let i = 0; i < 120; i++) server.agentSays(`old ${i + 1}`);
    await client.init();
    expect(client.state.items.map((item) => item.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 71));
    await client.loadEarlier();
    expect(client.state.items[0]?.seq).toBe(21);
    await client.loadEarlier();
    await client.loadEarlier();
    expect(client.state.items.map((item) => item.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(client.state.loadingEarlier).toBe(false);
  });

  it('sends the typing preview over the socket and clears it when the message is sent', async () => {
    const { client, frames } = setup();
    await client.init();
    client.typing.update('hel');
    client.sendText('hello');
    expect(frames).toEqual([
      { code: '8011', data: { text: 'hel' } },
      { code: '8011', data: { text: '' } },
    ]);
  });
  it('applies settings pushed with 2020 at once and tells the loader', async () => {
    const { client, push, looks } = setup();
    await client.init();
    expect(client.state.settings?.online).toBe(true);
    push({ code: '2020', data: widgetSettings({ color: '#ff0000', title: 'Help desk', online: false, rating: false }) });
    expect(client.state.settings).toMatchObject({ color: '#ff0000', title: 'Help desk', online: false, rating: false });
    expect(looks.at(-1)).toMatchObject({ color: '#ff0000', title: 'Help desk' });
  });
  it('keeps the pre-chat answers with the visitor and does not ask again', async () => {
    const { client, server, push } = setup();
    await client.init();
    push({ code: '2020', data: widgetSettings({ preChat: { enabled: true, fields: ['name', 'email'], required: ['name'] } }) });
    expect(client.state.preChatDone).toBe(false);
    await client.submitPreChat({ name: ' Ann ', phone: '123456', email: 'ann@example.com', content: '' });
    const contact = server.calls.find((call) => call.path === '/api/visitor/contact');
    expect(contact?.body).toEqual({ YQToken: TOKEN, name: 'Ann', phone: undefined, email: 'ann@example.com' });
    expect(server.calls.some((call) => call.path === '/api/visitor/letter')).toBe(false);
    expect(client.state.preChatDone).toBe(true);
    await client.init();
    expect(client.state.preChatDone).toBe(true);
  });
  it('tells the visitor to check their mail when a confirmation link went out, until dismissed', async () => {
    const { client, push } = setup();
    await client.init();
    push({ code: '2020', data: widgetSettings({ transcript: true, preChat: { enabled: true, fields: ['name', 'email'], required: [] } }) });
    expect(client.state.transcript).toBeNull();
    await client.submitPreChat({ name: 'Ann', phone: '', email: 'ann@example.com', content: '' });
    expect(client.state.transcript).toBe('sent');
    client.dismissTranscript();
    expect(client.state.transcript).toBeNull();
    // No address given: nothing to say.
    await client.submitPreChat({ name: 'Ann', phone: '', email: '', content: '' });
    expect(client.state.transcript).toBeNull();
  });
});
