import { describe, expect, it } from 'vitest';
import { fileName, linkify, safeUrl } from './linkify';

describe('linkify', () => {
  it('finds http, https and www links and keeps the rest as text', () => {
    expect(linkify('see https://example.com/a?b=1 and www.parley.dev now')).toEqual([
      { kind: 'text', text: 'see ' },
      { kind: 'link', text: 'https://example.com/a?b=1', href: 'https://example.com/a?b=1' },
      { kind: 'text', text: ' and ' },
      { kind: 'link', text: 'www.parley.dev', href: 'https://www.parley.dev/' },
      { kind: 'text', text: ' now' },
    ]);
  });

  it('leaves trailing punctuation out of the link', () => {
    const segments = linkify('Go to https://example.com/path. Then (https://example.com/x), ok?');
    expect(segments.filter((segment) => segment.kind === 'link').map((segment) => segment.text)).toEqual([
      'https://example.com/path',
      'https://example.com/x',
    ]);
  });

  it('keeps a balanced closing bracket inside the link', () => {
    const [link] = linkify('https://en.wikipedia.org/wiki/Foo_(bar)').filter((segment) => segment.kind === 'link');
    expect(link?.text).toBe('https://en.wikipedia.org/wiki/Foo_(bar)');
  });

  it('stops at Chinese punctuation', () => {
    const segments = linkify('请访问https://example.com/a，谢谢');
    expect(segments).toEqual([
      { kind: 'text', text: '请访问' },
      { kind: 'link', text: 'https://example.com/a', href: 'https://example.com/a' },
      { kind: 'text', text: '，谢谢' },
    ]);
  });

  it('never produces markup: markup in a message stays text, quotes end a link', () => {
    const text = '<img src=x onerror=alert(1)> <a href="javascript:alert(1)">x</a> https://e.com/"><script>';
    const segments = linkify(text);
    expect(segments.map((segment) => segment.text).join('')).toBe(text);
    for (const segment of segments) {
      if (segment.kind === 'link') {
        expect(segment.href).toMatch(/^https?:\/\//);
        expect(segment.href).not.toMatch(/[<>"]/);
      }
    }
    expect(segments.filter((segment) => segment.kind === 'link')).toHaveLength(1);
  });

  it('does not link javascript: or data: addresses', () => {
    expect(linkify('javascript:alert(1) data:text/html,hi')).toEqual([{ kind: 'text', text: 'javascript:alert(1) data:text/html,hi' }]);
  });

  it('returns nothing for empty text', () => {
    expect(linkify('')).toEqual([]);
  });
});

describe('safeUrl and fileName', () => {
  it('accepts http(s) and our own paths only', () => {
    expect(safeUrl('/uploads/a.png')).toBe('/uploads/a.png');
    expect(safeUrl('https://cdn.example.com/a.png')).toBe('https://cdn.example.com/a.png');
    expect(safeUrl('//evil.example/a.png')).toBeNull();
    expect(safeUrl('javascript:alert(1)')).toBeNull();
    expect(safeUrl('data:image/png;base64,AAAA')).toBeNull();
  });

  it('names a file by the last part of its path', () => {
    expect(fileName('/uploads/2026/report%20Q1.pdf?x=1')).toBe('report Q1.pdf');
    expect(fileName('https://example.com/files/a.zip')).toBe('a.zip');
  });
});
