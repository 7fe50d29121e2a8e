import type { SettingsOf } from '@parley/protocol';

/** The team's quick replies, as the `quickReply` settings page keeps them. */
export type QuickReplyGroup = SettingsOf<'quickReply'>['groups'][number];
export type QuickReply = QuickReplyGroup['items'][number];

/**
 * The groups holding replies whose title or content contains every word of `query` (any case), in
 * their configured order; groups left without a reply are dropped.
 */
export function searchQuickReplies(groups: readonly QuickReplyGroup[], query: string): QuickReplyGroup[] {
  const words = query.toLocaleLowerCase().split(/\s+/).filter(Boolean);
  const matches = (reply: QuickReply) => {
    const text = `${reply.title}\n${reply.content}`.toLocaleLowerCase();
    return words.every((word) => text.includes(word));
  };
  return groups
    .map((group) => ({ ...group, items: group.items.filter((reply) => reply.content.trim() !== '' && matches(reply)) }))
    .filter((group) => group.items.length > 0);
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
