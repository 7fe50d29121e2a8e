import { ROUTE_TITLES } from '@parley/protocol';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from '../locales/en.json';
import zh from '../locales/zh.json';
import { type Language, settings } from './settings';

/** Route titles come from the protocol package so the server's search speaks the same words. */
function routeTitles(lang: Language): Record<string, string> {
  return Object.fromEntries(Object.entries(ROUTE_TITLES).map(([key, value]) => [key, value[lang]]));
}

export const resources = {
  zh: { translation: { ...zh, route: routeTitles('zh') } },
  en: { translation: { ...en, route: routeTitles('en') } },
};

export function initI18n(language: Language) {
  return i18next.use(initReactI18next).init({
    resources,
    lng: language,
    fallbackLng: settings.defaultLanguage,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
}

export const i18n = i18next;

/** A route title key translated when a translation exists, else shown as is (seed §2). */
export function routeTitle(title: string | undefined): string {
  if (!title) return '';
  return i18next.t(`route.${title}`, { defaultValue: title });
}
