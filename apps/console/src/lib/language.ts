import { LANGUAGES, type Language, settings } from './settings';

function spoken(tag: string): Language | undefined {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  return LANGUAGES.find((language) => language === primary);
}

/**
 * The language the console starts in. A choice the user made (stored) wins; otherwise the first of the
 * browser's preferred languages the console speaks (en-GB → en, zh-TW → zh); a browser that prefers
 * none of them gets the seed's default, zh.
 */
export function startLanguage(stored: string | null, preferred: readonly string[]): Language {
  const chosen = LANGUAGES.find((language) => language === stored);
  if (chosen) return chosen;
  for (const tag of preferred) {
    const language = spoken(tag);
    if (language) return language;
  }
  return settings.defaultLanguage;
}

/** The browser's preferred languages, most wanted first; empty where there is no navigator. */
export function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  if (navigator.languages?.length) return navigator.languages;
  return navigator.language ? [navigator.language] : [];
}
