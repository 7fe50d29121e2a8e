import type { Message } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { replyWindow } from './Delivery';

function message(seq: number, role: Message['role'], time: string, delivery: Message['delivery'] = null): Message {
  return {
    id: seq,
    YQToken: 'v',
    seq,
    onlyID: `m${seq}`,
    role,
    type: 'text',
    msg: 'x',
    nickname: '',
    serviceID: null,
    time,
    withdrawn: false,
    delivery,
  };
}

describe('replyWindow', () => {
  const wrote = Date.parse('2026-01-01T00:00:00.000Z');
  it('counts 48 hours from the visitor last message, and the replies WeChat took or may take since', () => {
    const messages = [
      message(1, 'user', '2025-12-31T00:00:00.000Z'),
      message(2, 'service', '2025-12-31T00:01:00.000Z', 'sent'),
      message(3, 'user', '2026-01-01T00:00:00.000Z'),
      message(4, 'service', '2026-01-01T00:01:00.000Z', 'sent'),
      message(5, 'robot', '2026-01-01T00:02:00.000Z', 'pending'),
      message(6, 'service', '2026-01-01T00:03:00.000Z', 'failed'),
    ];
    expect(replyWindow(messages, wrote + 3600_000)).toEqual({ leftMs: 47 * 3600_000, used: 2 });
    expect(replyWindow(messages, wrote + 49 * 3600_000)?.leftMs).toBeLessThan(0);
  });

  it('says nothing before the visitor wrote', () => {
    expect(replyWindow([], wrote)).toBeUndefined();
  });
});
