import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AgentSocket, agentSocketUrl, isSessionClose, type SocketLike } from './socket';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: string[] = [];
  onopen: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  receive(data: string) {
    this.onmessage?.({ data } as MessageEvent);
  }
  drop(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code } as CloseEvent);
  }
}

describe('AgentSocket', () => {
  let sockets: FakeSocket[];
  beforeEach(() => {
    vi.useFakeTimers();
    sockets = [];
  });
  afterEach(() => vi.useRealTimers());

  const make = (extra: Partial<ConstructorParameters<typeof AgentSocket>[0]> = {}) =>
    new AgentSocket({
      url: () => `ws://test/ws/agent?token=t${sockets.length}`,
      onFrame: () => undefined,
      network: new EventTarget(),
      create: (url) => {
        const socket = new FakeSocket(url);
        sockets.push(socket);
        return socket;
      },
      ...extra,
    });

  it('sends the heartbeat on open and every 5000 ms, and ignores the server heartbeat', () => {
    const frames: unknown[] = [];
    const client = make({ onFrame: (frame) => frames.push(frame) });
    client.open();
    sockets[0]?.open();
    expect(sockets[0]?.sent).toEqual(['Y']);
    vi.advanceTimersByTime(10_000);
    expect(sockets[0]?.sent).toEqual(['Y', 'Y', 'Y']);
    sockets[0]?.receive('Y');
    sockets[0]?.receive('not json');
    sockets[0]?.receive('{"code":"0000"}');
    expect(frames).toEqual([{ code: '0000' }]);
  });

  it('reconnects a second after a close, with the current token, and reports the reconnection', () => {
    const onReconnect = vi.fn();
    const client = make({ onReconnect });
    client.open();
    sockets[0]?.open();
    sockets[0]?.drop();
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(2);
    expect(sockets[1]?.url).toBe('ws://test/ws/agent?token=t1');
    sockets[1]?.open();
    expect(onReconnect).toHaveBeenCalledTimes(1);
  });

  it('holds a frame sent while connecting and retries every second until open', () => {
    const client = make();
    client.open();
    client.send({ code: '5000', type: 'service', uuid: 'u' });
    vi.advanceTimersByTime(1000);
    expect(sockets[0]?.sent).toEqual([]);
    sockets[0]?.open();
    vi.advanceTimersByTime(1000);
    expect(sockets[0]?.sent).toEqual(['Y', '{"code":"5000","type":"service","uuid":"u"}']);
  });

  it('retries a server fault (1011) with growing waits up to a ceiling, and waits 1 s again once greeted', () => {
    const closes: number[] = [];
    const client = make({ onClose: (code) => closes.push(code), maxRetryMs: 4000 });
    client.open();
    const waits: number[] = [];
    // The server opens the socket, then closes it as a fault: what a console sees while the database is away.
    for (let index = 0; index < 5; index += 1) {
      const socket = sockets[sockets.length - 1];
      socket?.open();
      socket?.drop(1011);
      let waited = 0;
      const count = sockets.length;
      while (sockets.length === count) {
        vi.advanceTimersByTime(100);
        waited += 100;
      }
      waits.push(waited);
    }
    expect(waits).toEqual([1000, 2000, 4000, 4000, 4000]);
    expect(closes).toEqual([1011, 1011, 1011, 1011, 1011]);
    expect(closes.some(isSessionClose)).toBe(false);
    // Back to normal: the server greets, and the next drop is retried after a second.
    sockets[sockets.length - 1]?.open();
    sockets[sockets.length - 1]?.receive('{"code":"0000"}');
    sockets[sockets.length - 1]?.drop(1006);
    const count = sockets.length;
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(count + 1);
  });

  it('tells session closes (4401, 4402, 4403) from server and network faults', () => {
    expect([4401, 4402, 4403].every(isSessionClose)).toBe(true);
    expect([1011, 1013, 1006, 1001, 4408, 4400].some(isSessionClose)).toBe(false);
  });

  it('gives up the socket when the browser goes offline, and reconnects at once when it is back', () => {
    const network = new EventTarget();
    const statuses: string[] = [];
    const onReconnect = vi.fn();
    const client = make({ network, onReconnect, onStatus: (status) => statuses.push(status) });
    client.open();
    sockets[0]?.open();
    // A dropped network seldom closes the socket: it stays open in name, and nothing comes through.
    network.dispatchEvent(new Event('offline'));
    expect(statuses.at(-1)).toBe('closed');
    expect(client.connected).toBe(false);
    // The reconnections fail while offline, each waiting longer.
    vi.advanceTimersByTime(1000);
    sockets[1]?.drop();
    vi.advanceTimersByTime(1500);
    expect(sockets).toHaveLength(2);
    network.dispatchEvent(new Event('online'));
    expect(sockets).toHaveLength(3);
    sockets[2]?.open();
    expect(statuses.at(-1)).toBe('open');
    expect(onReconnect).toHaveBeenCalledTimes(1);
    // The abandoned socket's late close is not taken for the new one's.
    sockets[0]?.drop();
    expect(client.connected).toBe(true);
    // Online again while open: nothing to do.
    network.dispatchEvent(new Event('online'));
    expect(sockets).toHaveLength(3);
    // A socket begun while offline, still connecting when the network returns, is replaced at once.
    network.dispatchEvent(new Event('offline'));
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(4);
    network.dispatchEvent(new Event('online'));
    expect(sockets).toHaveLength(5);
    sockets[3]?.drop();
    sockets[4]?.open();
    expect(client.connected).toBe(true);
    client.close();
    network.dispatchEvent(new Event('online'));
    expect(sockets).toHaveLength(5);
  });

  it('gives up a socket from which nothing, not even the heartbeat echo, has come for the idle time', () => {
    const statuses: string[] = [];
    make({ idleMs: 12_000, onStatus: (status) => statuses.push(status) }).open();
    sockets[0]?.open();
    vi.advanceTimersByTime(5000);
    sockets[0]?.receive('Y');
    vi.advanceTimersByTime(10_000);
    expect(statuses.at(-1)).toBe('open');
    vi.advanceTimersByTime(5000);
    expect(statuses.at(-1)).toBe('closed');
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(2);
  });

  it('does not reconnect once closed on purpose', () => {
    const client = make();
    client.open();
    sockets[0]?.open();
    client.close();
    sockets[0]?.drop(1000);
    vi.advanceTimersByTime(5000);
    expect(sockets).toHaveLength(1);
  });

  it('builds the address from the page location', () => {
    expect(agentSocketUrl('a b', { protocol: 'https:', host: 'chat.example' })).toBe('wss://chat.example/ws/agent?token=a%20b');
  });
});
