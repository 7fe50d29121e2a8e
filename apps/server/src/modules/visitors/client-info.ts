/** What a visitor's user agent and referrer say about them, for the visitor panel and statistics. */
export interface UserAgentInfo {
  platform: string;
  browser: string;
  device: 'mobile' | 'tablet' | 'desktop' | 'bot' | '';
}

const PLATFORMS: [RegExp, string][] = [
  [/windows phone/i, 'Windows Phone'],
  [/windows/i, 'Windows'],
  [/ipad/i, 'iPadOS'],
  [/iphone|ipod/i, 'iOS'],
  [/android/i, 'Android'],
  [/harmonyos|openharmony/i, 'HarmonyOS'],
  [/cros/i, 'ChromeOS'],
  [/mac os x|macintosh/i, 'macOS'],
  [/linux/i, 'Linux'],
];

// Order matters: embedded and derived browsers name their base browser in their user agent too.
const BROWSERS: [RegExp, string][] = [
  [/micromessenger/i, 'WeChat'],
  [/dingtalk/i, 'DingTalk'],
  [/\bqq\//i, 'QQ'],
  [/mqqbrowser/i, 'QQ Browser'],
  [/ucbrowser|ucweb/i, 'UC Browser'],
  [/edg(e|a|ios)?\//i, 'Edge'],
  [/opr\/|opera/i, 'Opera'],
  [/samsungbrowser/i, 'Samsung Internet'],
  [/firefox|fxios/i, 'Firefox'],
  [/chrome|crios|chromium/i, 'Chrome'],
  [/safari/i, 'Safari'],
  [/msie|trident/i, 'Internet Explorer'],
];

export function parseUserAgent(userAgent: string): UserAgentInfo {
  if (!userAgent) return { platform: '', browser: '', device: '' };
  const platform = PLATFORMS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? '';
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? '';
  let device: UserAgentInfo['device'] = 'desktop';
  if (/bot|crawler|spider|headlesschrome/i.test(userAgent)) device = 'bot';
  else if (/ipad|tablet/i.test(userAgent) || (/android/i.test(userAgent) && !/mobile/i.test(userAgent))) device = 'tablet';
  else if (/mobi|iphone|ipod|android|harmonyos/i.test(userAgent)) device = 'mobile';
  return { platform, browser, device };
}

export interface SourceInfo {
  /** The search engine the visitor came from, or '' for a direct visit or another site. */
  engine: string;
  keyword: string;
}

const ENGINES: { host: RegExp; name: string; params: string[] }[] = [
  { host: /(^|\.)baidu\.com$/, name: 'Baidu', params: ['wd', 'word', 'kw'] },
  { host: /(^|\.)google\.[a-z.]+$/, name: 'Google', params: ['q'] },
  { host: /(^|\.)bing\.com$/, name: 'Bing', params: ['q'] },
  { host: /(^|\.)sogou\.com$/, name: 'Sogou', params: ['query', 'keyword'] },
  { host: /(^|\.)so\.com$/, name: '360', params: ['q'] },
  { host: /(^|\.)sm\.cn$/, name: 'Shenma', params: ['q'] },
  { host: /(^|\.)yahoo\.[a-z.]+$/, name: 'Yahoo', params: ['p', 'q'] },
  { host: /(^|\.)duckduckgo\.com$/, name: 'DuckDuckGo', params: ['q'] },
  { host: /(^|\.)yandex\.[a-z.]+$/, name: 'Yandex', params: ['text'] },
  { host: /(^|\.)naver\.com$/, name: 'Naver', params: ['query'] },
];

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** Search engine and keyword from the referrer, or the campaign term of the landing page. */
export function parseSource(referrer: string, landingUrl: string): SourceInfo {
  const from = parseUrl(referrer);
  const landing = parseUrl(landingUrl);
  let engine = '';
  let keyword = '';
  if (from) {
    const match = ENGINES.find((candidate) => candidate.host.test(from.hostname.toLowerCase()));
    if (match) {
      engine = match.name;
      for (const param of match.params) {
        const value = from.searchParams.get(param);
        if (value) {
          keyword = value;
          break;
        }
      }
    }
  }
  if (!keyword && landing) keyword = landing.searchParams.get('utm_term') ?? landing.searchParams.get('keyword') ?? '';
  if (!engine && landing?.searchParams.get('utm_medium') === 'cpc') engine = landing.searchParams.get('utm_source') ?? '';
  return { engine: engine.slice(0, 32), keyword: keyword.trim().slice(0, 256) };
}

/** Where a visitor came from when no chat link says so: the referring site's host. */
export function sourceOf(referrer: string): string {
  if (!referrer) return '';
  try {
    return new URL(referrer).host;
  } catch {
    return '';
  }
}
