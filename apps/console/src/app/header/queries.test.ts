import type { Notice } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { bellCount } from './queries';

const notice = (kind: Notice['kind']): Notice => ({
  id: kind,
  kind,
  title: kind,
  notice: '',
  url: '#/',
  created_at: '2026-11-23T04:00:00Z',
});

describe('bellCount', () => {
  it('counts one unread letter once, though the notices also hold the letters entry', () => {
    expect(bellCount(1, [notice('letter')])).toBe(1);
  });

  it('adds the other notices to the unread letters', () => {
    expect(bellCount(3, [notice('letter'), notice('registration')])).toBe(4);
    expect(bellCount(0, [notice('registration')])).toBe(1);
    expect(bellCount(0, [])).toBe(0);
  });
});
