import { describe, expect, it } from 'vitest';
import { BRIDGE_TAG, readHostMessage } from './bridge';

describe('readHostMessage', () => {
  it('reads page and visibility messages', () => {
    expect(readHostMessage({ tag: BRIDGE_TAG, type: 'page', url: 'https://shop.example/a', title: 'A' })).toEqual({
      tag: BRIDGE_TAG,
      type: 'page',
      url: 'https://shop.example/a',
      title: 'A',
    });
    expect(readHostMessage({ tag: BRIDGE_TAG, type: 'visibility', open: true })).toEqual({
      tag: BRIDGE_TAG,
      type: 'visibility',
      open: true,
    });
    expect(readHostMessage({ tag: BRIDGE_TAG, type: 'visibility', open: false, at: 1_700_000_000_000 })).toEqual({
      tag: BRIDGE_TAG,
      type: 'visibility',
      open: false,
      at: 1_700_000_000_000,
    });
    // A time that is not a number is left out, not passed on.
    expect(readHostMessage({ tag: BRIDGE_TAG, type: 'visibility', open: false, at: 'soon' })).toEqual({
      tag: BRIDGE_TAG,
      type: 'visibility',
      open: false,
    });
  });

  it('ignores other posts and malformed ones', () => {
    expect(readHostMessage('hello')).toBeNull();
    expect(readHostMessage({ type: 'page', url: 'x' })).toBeNull();
    expect(readHostMessage({ tag: BRIDGE_TAG, type: 'page', url: 42 })).toBeNull();
    expect(readHostMessage({ tag: BRIDGE_TAG, type: 'visibility', open: 'yes' })).toBeNull();
    expect(readHostMessage({ tag: BRIDGE_TAG, type: 'unknown' })).toBeNull();
  });

  it('caps what it passes on', () => {
    const read = readHostMessage({ tag: BRIDGE_TAG, type: 'page', url: 'u'.repeat(5000), title: 't'.repeat(5000) });
    expect(read?.type === 'page' && read.url.length).toBe(2048);
    expect(read?.type === 'page' && read.title.length).toBe(512);
  });
});
