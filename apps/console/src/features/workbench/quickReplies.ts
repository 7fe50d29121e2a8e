/** The agent's own quick replies, kept in this browser until the settings page provides shared ones. */
export const QUICK_REPLIES_KEY = 'workbench-quick-replies';

export function readQuickReplies(defaults: string[]): string[] {
  try {
    const raw = localStorage.getItem(QUICK_REPLIES_KEY);
    if (raw === null) return defaults;
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string' && item.trim() !== '') : defaults;
  } catch {
    return defaults;
  }
}

export function writeQuickReplies(list: string[]): void {
  try {
    localStorage.setItem(QUICK_REPLIES_KEY, JSON.stringify(list.map((item) => item.trim()).filter(Boolean)));
  } catch {
    // Storage may be blocked: the list then lasts until the page is reloaded.
  }
}

/** A small built-in set: common in support conversations, and the same in every language. */
export const EMOJI = [
  '😀',
  '😁',
  '😂',
  '🙂',
  '😉',
  '😊',
  '😍',
  '😘',
  '🤔',
  '😅',
  '😭',
  '😮',
  '😴',
  '😎',
  '🙏',
  '👍',
  '👎',
  '👌',
  '👏',
  '🤝',
  '💪',
  '🎉',
  '❤️',
  '💔',
  '🔥',
  '✅',
  '❌',
  '⭐',
  '📦',
  '🚚',
  '💰',
  '📞',
  '📧',
  '⏰',
  '👋',
  '🌹',
];
