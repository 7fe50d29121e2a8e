import type { Locale } from 'antd/es/locale';
import { useEffect, useState } from 'react';
import type { Language } from '../lib/settings';
import { useSettings } from '../stores/settings';

// No run-time import of antd here: the router loads the locale beside the antd frame.
const locales: Partial<Record<Language, Locale>> = {};
let lastLocale: Locale | undefined;

/** antd's own texts (pagination, pickers) load with the language instead of with the first page. */
export async function loadAntdLocale(language: Language): Promise<Locale> {
  const cached = locales[language];
  if (cached) return cached;
  const module = language === 'en' ? await import('antd/locale/en_US') : await import('antd/locale/zh_CN');
  locales[language] = module.default;
  lastLocale = module.default;
  return module.default;
}

/**
 * The locale for the chosen language. Callers load it before their first render (see loadAntdLocale):
 * ConfigProvider wraps its children differently with and without a locale, so a locale that arrived
 * after the first render would remount the whole tree below it.
 */
export function useAntdLocale(): Locale | undefined {
  const language = useSettings((state) => state.language);
  const [, setLoaded] = useState(0);
  useEffect(() => {
    if (!locales[language]) void loadAntdLocale(language).then(() => setLoaded((count) => count + 1));
  }, [language]);
  return locales[language] ?? lastLocale;
}
