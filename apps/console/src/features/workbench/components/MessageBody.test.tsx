import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { type ChatMessage, ownUpload } from '../model';
import { MessageBody } from './MessageBody';

function image(msg: string): ChatMessage {
  return {
    id: 1,
    YQToken: 'tokentokentokentokentoken',
    seq: 1,
    onlyID: 'm1',
    role: 'user',
    type: 'image',
    msg,
    nickname: 'V0001',
    serviceID: null,
    time: '2026-01-01T10:00:00.000Z',
    withdrawn: false,
  };
}

const imageSources = (html: string) => [...html.matchAll(/<img[^>]*\ssrc="([^"]*)"/g)].map((match) => match[1]);

describe('image messages', () => {
  it('draws an image only for the server’s own uploads', () => {
    const own = renderToStaticMarkup(<MessageBody message={image('/api/files/abcdefghijklmnopqrstuvwx.png/cat.png')} />);
    expect(imageSources(own)).toEqual(['/api/files/abcdefghijklmnopqrstuvwx.png/cat.png']);
  });

  it.each([
    'https://tracker.example/pixel.gif?agent=1',
    'http://tracker.example/api/files/abcdefghijklmnopqrstuvwx.png',
    '//tracker.example/api/files/x.png',
    '/\\tracker.example/pixel.gif',
    'data:image/svg+xml,<svg/>',
  ])('shows %s as text or a link that nothing fetches', (msg) => {
    const html = renderToStaticMarkup(<MessageBody message={image(msg)} />);
    expect(imageSources(html)).toEqual([]);
    expect(html).not.toContain('<img');
  });
});

describe('ownUpload', () => {
  const origin = 'https://chat.example.com';
  it('keeps same-origin upload paths and refuses everything else', () => {
    expect(ownUpload('/api/files/a.png/x.png', origin)).toBe('/api/files/a.png/x.png');
    expect(ownUpload('https://chat.example.com/api/files/a.png', origin)).toBe('/api/files/a.png');
    expect(ownUpload('https://chat.example.com.evil.example/api/files/a.png', origin)).toBeNull();
    expect(ownUpload('/api/files/../login', origin)).toBeNull();
    expect(ownUpload('/avatar.png', origin)).toBeNull();
    expect(ownUpload('javascript:alert(1)', origin)).toBeNull();
  });
});
