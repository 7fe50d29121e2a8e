import { describe, expect, it } from 'vitest';
import { parseSource, parseUserAgent } from './client-info.js';

describe('parseUserAgent', () => {
  it.each([
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
      'Windows',
      'Chrome',
      'desktop',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36 Edg/130.0',
      'Windows',
      'Edge',
      'desktop',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      'iOS',
      'Safari',
      'mobile',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36 MicroMessenger/8.0',
      'Android',
      'WeChat',
      'mobile',
    ],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0; rv:131.0) Gecko/20100101 Firefox/131.0', 'macOS', 'Firefox', 'desktop'],
    ['Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Safari/604.1', 'iPadOS', 'Safari', 'tablet'],
  ])('reads %s', (ua, platform, browser, device) => {
    expect(parseUserAgent(ua)).toEqual({ platform, browser, device });
  });

  it('answers blanks for no user agent', () => {
    expect(parseUserAgent('')).toEqual({ platform: '', browser: '', device: '' });
  });
});

describe('parseSource', () => {
  it('finds engine and keyword in search referrers', () => {
    expect(parseSource('https://www.baidu.com/s?wd=%E5%AE%A2%E6%9C%8D%E7%B3%BB%E7%BB%9F', 'https://shop.example/')).toEqual({
      engine: 'Baidu',
      keyword: '客服系统',
    });
    expect(parseSource('https://www.google.co.uk/search?q=live+chat', 'https://shop.example/')).toEqual({
      engine: 'Google',
      keyword: 'live chat',
    });
    expect(parseSource('https://www.bing.com/', 'https://shop.example/')).toEqual({ engine: 'Bing', keyword: '' });
  });

  it('falls back to campaign terms, and says nothing of other sites', () => {
    expect(parseSource('', 'https://shop.example/?utm_source=Baidu&utm_medium=cpc&utm_term=chat')).toEqual({
      engine: 'Baidu',
      keyword: 'chat',
    });
    expect(parseSource('https://news.example/article', 'https://shop.example/')).toEqual({ engine: '', keyword: '' });
    expect(parseSource('not a url', 'also not')).toEqual({ engine: '', keyword: '' });
  });
});
