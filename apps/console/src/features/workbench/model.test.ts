import { describe, expect, it } from 'vitest';
import { type ChatMessage, canWithdraw, fileLabel, hasGap, linkify, mergeMessages, sourceTitle, type Translate } from './model';

function message(seq: number, onlyID = `m${seq}`, extra: Partial<ChatMessage> = {}): ChatMessage {
  return {
    id: seq,
    YQToken: 'tokentokentokentokentoken',
    seq,
    onlyID,
    role: 'user',
    type: 'text',
    msg: `text ${seq}`,
    nickname: 'V0001',
    serviceID: null,
    time: '2026-01-01T10:00:00.000Z',
    withdrawn: false,
    ...extra,
  };
}

const t: Translate = (key, values) => `${key}${values && Object.keys(values).length ? JSON.stringify(values) : ''}`;

describe('mergeMessages', () => {
  it('keeps one copy per onlyID, in seq order, whatever the arrival order', () => {
    const merged = mergeMessages([message(2), message(1)], [message(3), message(2), message(1)]);
    expect(merged.map((item) => item.seq)).toEqual([1, 2, 3]);
  });

  it('replaces our pending copy with the stored one, and never the other way round', () => {
    const pending = message(0, 'mine', { role: 'service', pending: true });
    const stored = message(7, 'mine', { role: 'service' });
    const once = mergeMessages([message(6), pending], [stored]);
    expect(once).toHaveLength(2);
    expect(once[1]).toEqual(stored);
    expect(mergeMessages(once, [pending])).toEqual(once);
  });

  it('puts pending messages after the stored ones', () => {
    const merged = mergeMessages([message(0, 'a', { pending: true })], [message(5), message(4)]);
    expect(merged.map((item) => item.onlyID)).toEqual(['m4', 'm5', 'a']);
  });

  it('keeps a withdrawn message withdrawn when an older copy comes back', () => {
    const withdrawn = message(3, 'w', { withdrawn: true, msg: '' });
    const merged = mergeMessages([withdrawn], [message(3, 'w')]);
    expect(merged[0]?.withdrawn).toBe(true);
    expect(merged[0]?.msg).toBe('');
  });
});

describe('hasGap', () => {
  it('is true only when a seq is skipped after what is held', () => {
    expect(hasGap([message(1), message(2)], 3)).toBe(false);
    expect(hasGap([message(1), message(2)], 5)).toBe(true);
    expect(hasGap([], 9)).toBe(false);
  });
});

describe('sourceTitle', () => {
  const base = { engine: '', keyword: '', referrer: '' };
  it('says which keyword brought the visitor, through which engine', () => {
    expect(sourceTitle({ ...base, engine: 'Baidu', keyword: 'live chat' }, t)).toBe(
      'workbench.source.search{"keyword":"live chat","engine":"Baidu"}',
    );
  });
  it('falls back to the engine, the referring host, then a direct visit', () => {
    expect(sourceTitle({ ...base, engine: 'Google' }, t)).toBe('workbench.source.engine{"engine":"Google"}');
    expect(sourceTitle({ ...base, keyword: 'rocket' }, t)).toBe('workbench.source.keyword{"keyword":"rocket"}');
    expect(sourceTitle({ ...base, referrer: 'https://news.example.com/a?b=1' }, t)).toBe(
      'workbench.source.referrer{"host":"news.example.com"}',
    );
    expect(sourceTitle({ ...base, referrer: 'not a url' }, t)).toBe('workbench.source.direct');
  });
});

describe('linkify', () => {
  it('splits text and links; markup stays text', () => {
    expect(linkify('<b>bold</b> see https://example.com/a. ok')).toEqual([
      { text: '<b>bold</b> see ' },
      { text: 'https://example.com/a', href: 'https://example.com/a' },
      { text: '. ok' },
    ]);
  });
  it('never makes a javascript: link', () => {
    expect(linkify('javascript:alert(1)')).toEqual([{ text: 'javascript:alert(1)' }]);
  });
  it('adds a scheme to www. links', () => {
    expect(linkify('www.example.com')[0]?.href).toBe('https://www.example.com/');
  });
});

describe('canWithdraw', () => {
  const now = Date.parse('2026-01-01T10:01:00.000Z');
  const mine = message(4, 'x', { role: 'service', serviceID: 'me' });
  it('allows our own stored message within two minutes', () => {
    expect(canWithdraw(mine, 'me', now)).toBe(true);
    expect(canWithdraw(mine, 'me', now + 120_000)).toBe(false);
    expect(canWithdraw(mine, 'other', now)).toBe(false);
    expect(canWithdraw({ ...mine, withdrawn: true }, 'me', now)).toBe(false);
    expect(canWithdraw(message(5), 'me', now)).toBe(false);
  });
  it('never offers to withdraw a message to WeChat, which cannot take one back', () => {
    expect(canWithdraw({ ...mine, delivery: 'sent' }, 'me', now)).toBe(false);
    expect(canWithdraw({ ...mine, delivery: 'pending' }, 'me', now)).toBe(false);
  });
});

describe('fileLabel', () => {
  it('shows the name carried in the fragment, else the last path part', () => {
    expect(fileLabel('/api/files/abc.pdf#Invoice%20May.pdf')).toBe('Invoice May.pdf');
    expect(fileLabel('/api/files/abc.pdf')).toBe('abc.pdf');
  });
});
