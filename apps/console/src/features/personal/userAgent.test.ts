import { describe, expect, it } from 'vitest';
import { describeBrowser } from './userAgent';

describe('describeBrowser', () => {
  it('names the browser and system of common user agents', () => {
    expect(
      describeBrowser('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'),
    ).toEqual({ name: 'Chrome 126', system: 'Windows', mobile: false });
    expect(
      describeBrowser(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.87',
      ),
    ).toEqual({ name: 'Edge 126', system: 'Windows', mobile: false });
    expect(describeBrowser('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')).toEqual({
      name: 'Firefox 128',
      system: 'Linux',
      mobile: false,
    });
    expect(
      describeBrowser(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
    ).toEqual({ name: 'Safari 17', system: 'iOS 17', mobile: true });
    expect(
      describeBrowser(
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
      ),
    ).toEqual({ name: 'Chrome 126', system: 'Android 14', mobile: true });
    expect(
      describeBrowser('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/139.0.0.0 Safari/537.36'),
    ).toEqual({ name: 'Chrome 139', system: 'Linux', mobile: false });
  });

  it('leaves out what it cannot tell', () => {
    expect(describeBrowser('curl/8.5.0')).toEqual({ name: undefined, system: undefined, mobile: false });
    expect(describeBrowser('')).toEqual({ name: undefined, system: undefined, mobile: false });
  });
});
