import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VisitorSocket } from './socket';

/** The part of the browser WebSocket the visitor socket uses, driven by the test. */
class FakeWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static created: FakeWebSocket[] = [];
  readyState = FakeWebSocket.CONNECTING;
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  constructor(readonly url: string) {
    FakeWebSocket.created.push(this);
  }
  send(): void {}
  close(): void {
    this.readyState = 3;
  }
  open(): void {
    this.readyState = FakeWebSocket.OPEN;
    this.onopen?.();
  }
  drop(code: number): void {
    this.readyState = 3;
    this.onclose?.({ code });
  }
}

describe('VisitorSocket', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeWebSocket.created = [];
    vi.stubGlobal('WebSocket', FakeWebSocket);
    vi.stubGlobal('document', { visibilityState: 'visible', addEventListener: () => undefined, removeEventListener: () => undefined });
    vi.stubGlobal('addEventListener', () => undefined);
    vi.stubGlobal('removeEventListener', () => undefined);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const start = () => {
    const onUnknownVisitor = vi.fn();
    const socket = new VisitorSocket(() => 'ws://test/ws/visitor?YQToken=t', {
      onFrame: () => undefined,
      onOpen: () => undefined,
      onConnectedChange: () => undefined,
      onUnknownVisitor,
    });
    socket.start();
    return { socket, onUnknownVisitor };
  };

  it('retries a server fault (1011) with backoff and keeps the visitor', () => {
    const { socket, onUnknownVisitor } = start();
    FakeWebSocket.created[0]?.open();
    FakeWebSocket.created[0]?.drop(1011);
    expect(onUnknownVisitor).not.toHaveBeenCalled();
    vi.advanceTimersByTime(30_000);
    expect(FakeWebSocket.created).toHaveLength(2);
    socket.stop();
  });

  it('starts over only when the server does not know the visitor (4401)', () => {
    const { socket, onUnknownVisitor } = start();
    FakeWebSocket.created[0]?.open();
    FakeWebSocket.created[0]?.drop(4401);
    expect(onUnknownVisitor).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(30_000);
    expect(FakeWebSocket.created).toHaveLength(1);
    socket.stop();
  });
});
