import type { Message } from '@parley/protocol';

/** A message as the server stores it, for the widget's tests: seq n, from an agent unless told otherwise. */
export function storedMessage(seq: number, extra: Partial<Message> = {}): Message {
  return {
    id: seq,
    YQToken: 'visitor-token-0123456789abcdef',
    seq,
    onlyID: `m${seq}`,
    role: 'service',
    type: 'text',
    msg: `message ${seq}`,
    nickname: 'Alice',
    serviceID: null,
    time: '2026-01-01T00:00:00.000Z',
    withdrawn: false,
    ...extra,
  };
}
