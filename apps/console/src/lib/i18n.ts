import { ROUTE_TITLES } from '@parley/protocol';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Language } from './settings';

/** Route titles come from the protocol package so the server's search speaks the same words. */
function routeTitles(lang: Language): Record<string, string> {
  return Object.fromEntries(Object.entries(ROUTE_TITLES).map(([key, value]) => [key, value[lang]]));
}

/** Each language is its own chunk: the login page loads only the one it shows. */
const LOADERS: Record<Language, () => Promise<{ default: Record<string, unknown> }>> = {
  zh: () => import('../locales/zh.json'),
  en: () => import('../locales/en.json'),
};

async function bundle(lang: Language): Promise<Record<string, unknown>> {
  const texts = await LOADERS[lang]();
  return { ...texts.default, route: routeTitles(lang) };
}

export async function initI18n(language: Language) {
  await i18next.use(initReactI18next).init({
    resources: { [language]: { translation: await bundle(language) } },
    lng: language,
    fallbackLng: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
}

/** Switches the language, loading its texts first when this session has not used it yet. */
export async function changeLanguage(language: Language): Promise<void> {
  if (!i18next.hasResourceBundle(language, 'translation')) i18next.addResourceBundle(language, 'translation', await bundle(language));
  await i18next.changeLanguage(language);
}

export const i18n = i18next;

/** A route title key translated when a translation exists, else shown as is (seed §2). */
export function routeTitle(title: string | undefined): string {
  if (!title) return '';
  return i18next.t(`route.${title}`, { defaultValue: title });
}
