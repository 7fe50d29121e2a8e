import type { SearchSuggestion } from '@parley/protocol';

/** Seed §2: a suggestion matches when its value contains the typed text, both in lower case. */
export function filterSuggestions(list: SearchSuggestion[], typed: string): SearchSuggestion[] {
  const needle = typed.trim().toLowerCase();
  if (!needle) return list;
  return list.filter((item) => item.value.toLowerCase().includes(needle));
}

/** Where choosing an entry goes: its own url, or an external web search for its value. */
export function searchTarget(value: string, url: string | undefined): string {
  if (url) return url;
  return `https://www.bing.com/search?q=${encodeURIComponent(value)}`;
}

/** Greeting by hour (seed §9). */
export function greetingKey(hour: number): 'morning' | 'forenoon' | 'noon' | 'afternoon' | 'evening' {
  if (hour < 8) return 'morning';
  if (hour <= 11) return 'forenoon';
  if (hour <= 13) return 'noon';
  if (hour < 18) return 'afternoon';
  return 'evening';
}
