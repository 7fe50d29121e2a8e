import { createContext, type ReactNode, useContext } from 'react';
import './found.css';

/** The keyword a list was searched for ('' when none): its rows show where it was found. */
export const SearchedKeyword = createContext('');

/** The keyword of the list this is drawn in. */
export function useSearchedKeyword(): string {
  return useContext(SearchedKeyword);
}

/**
 * `text` with each place it contains `keyword` marked, compared as the server's search compares (case
 * aside): what the search found is what is marked. Plain text when there is no keyword.
 */
export function Found({ text, keyword: given }: { text: string; keyword?: string }): ReactNode {
  const searched = useSearchedKeyword();
  const keyword = (given ?? searched).trim();
  if (!keyword || !text) return text;
  const lower = text.toLowerCase();
  const wanted = keyword.toLowerCase();
  // A few letters change length when lower-cased: their places would not line up, so nothing is marked.
  if (lower.length !== text.length) return text;
  const parts: ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(wanted); at >= 0 && wanted.length > 0; at = lower.indexOf(wanted, from)) {
    if (at > from) parts.push(text.slice(from, at));
    parts.push(
      <mark key={at} className="found">
        {text.slice(at, at + wanted.length)}
      </mark>,
    );
    from = at + wanted.length;
  }
  if (parts.length === 0) return text;
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}
