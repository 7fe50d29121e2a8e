/** A browser and its system as a person names them, read from a User-Agent header; undefined parts when unknown. */
export interface Browser {
  name: string | undefined;
  system: string | undefined;
  mobile: boolean;
}

// Order matters: Edge and Opera also say Chrome, Chrome also says Safari.
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\b(?:OPR|Opera)\/(\d+)/, 'Opera'],
  [/\bSamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/\bMicroMessenger\/(\d+)/, 'WeChat'],
  [/\b(?:Firefox|FxiOS)\/(\d+)/, 'Firefox'],
  [/\b(?:Chrome|HeadlessChrome|CriOS|Chromium)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];

const SYSTEMS: [RegExp, string][] = [
  [/\b(?:iPhone|iPad|iPod)\b.*? OS (\d+)/, 'iOS'],
  [/\bAndroid (\d+)/, 'Android'],
  [/\bWindows NT\b/, 'Windows'],
  [/\bMac OS X\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux'],
];

export function describeBrowser(userAgent: string): Browser {
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent));
  const version = browser?.[0].exec(userAgent)?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent));
  const systemVersion = system?.[0].exec(userAgent)?.[1];
  return {
    name: browser ? `${browser[1]}${version ? ` ${version}` : ''}` : undefined,
    system: system ? `${system[1]}${systemVersion ? ` ${systemVersion}` : ''}` : undefined,
    mobile: /\b(?:Mobile|iPhone|Android)\b/.test(userAgent),
  };
}
