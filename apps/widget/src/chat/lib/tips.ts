import type { Lang } from './i18n';

/**
 * The protocol's TIP_TEXTS: tips are stored as a kind plus a name and each client words them in its
 * own language. Copied because the protocol keeps them beside its zod schemas, which would otherwise
 * come into the chat bundle; a unit test keeps the copy equal to the original.
 */
export const TIP_TEXTS: Record<string, Record<Lang, string>> = {
  'tip.accepted': { zh: '{name} 已接入对话', en: '{name} joined the conversation' },
  'tip.transferred': { zh: '对话已转接给 {name}', en: 'Conversation transferred to {name}' },
  'tip.ended': { zh: '对话已结束', en: 'The conversation has ended' },
  'tip.visitorLeft': { zh: '访客已离开', en: 'The visitor left' },
  'tip.visitorBack': { zh: '访客已回来', en: 'The visitor is back' },
};

/** A tip's words; a tip that is not a known kind is shown as the text it is. */
export function tipText(kind: string, name: string, lang: Lang): string {
  const texts = TIP_TEXTS[kind];
  return texts ? texts[lang].replace('{name}', name) : kind;
}

/** Tips written for agents about the visitor; the visitor's own window leaves them out. */
const AGENT_ONLY = new Set(['tip.visitorLeft', 'tip.visitorBack']);

export function shownToVisitor(message: { role: string; msg: string }): boolean {
  return message.role !== 'tip' || !AGENT_ONLY.has(message.msg);
}
