/** A run of message text: plain, or a link to render as an anchor whose text is the link itself. */
export type Segment = { kind: 'text'; text: string } | { kind: 'link'; text: string; href: string };

const CANDIDATE = /\b(?:https?:\/\/|www\.)[^\s<>"'`\u3000-\u303f\uff01-\uff5e]+/gi;
const TRAILING = /[.,;:!?)\]}]+$/;

/** Only http(s) targets become links; anything that does not parse stays text. */
function toHref(text: string): string | null {
  const absolute = /^www\./i.test(text) ? `https://${text}` : text;
  try {
    const url = new URL(absolute);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * Splits message text into text and link segments. It never produces markup: the caller renders each
 * segment as a text node or an anchor with the segment's text as its text.
 */
export function linkify(text: string): Segment[] {
  const segments: Segment[] = [];
  let last = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    let candidate = match[0];
    // A closing bracket belongs to the link only when the link opened one (wiki-style URLs).
    while (TRAILING.test(candidate)) {
      const end = candidate.at(-1);
      if (end === ')' && (candidate.match(/\(/g)?.length ?? 0) >= (candidate.match(/\)/g)?.length ?? 0)) break;
      candidate = candidate.slice(0, -1);
    }
    const href = toHref(candidate);
    if (!href) continue;
    const start = match.index;
    if (start > last) segments.push({ kind: 'text', text: text.slice(last, start) });
    segments.push({ kind: 'link', text: candidate, href });
    last = start + candidate.length;
  }
  if (last < text.length) segments.push({ kind: 'text', text: text.slice(last) });
  return segments;
}

/** A URL we are willing to put in src/href of an image or file message: http(s) or our own path. */
export function safeUrl(value: string): string | null {
  if (/^\/(?!\/)/.test(value)) return value;
  return /^https?:\/\//i.test(value) ? toHref(value) : null;
}

/** The name shown for a file message: the last part of its URL's path. */
export function fileName(url: string): string {
  const path = url.split(/[?#]/)[0] ?? '';
  const last = path.split('/').filter(Boolean).at(-1) ?? url;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
