// Kept free of zod so that small clients (the widget's chat window) can import it without the schemas.

/** Longest message text, in characters. */
export const MAX_MESSAGE_LENGTH = 5000;

/**
 * System tips are stored as a kind (`msg`, e.g. `tip.transferred`) plus the agent or visitor name they
 * concern (`nickname`), so that each client shows them in its own language.
 */
export const TIP_TEXTS = {
  'tip.accepted': { zh: '{name} 已接入对话', en: '{name} joined the conversation' },
  'tip.transferred': { zh: '对话已转接给 {name}', en: 'Conversation transferred to {name}' },
  'tip.requeued': { zh: '{name} 已将对话转回排队', en: '{name} returned the conversation to the queue' },
  'tip.ended': { zh: '对话已结束', en: 'The conversation has ended' },
  'tip.closedIdle': { zh: '对话因长时间没有回复已自动结束', en: 'The conversation was closed after a period of inactivity' },
  'tip.visitorLeft': { zh: '访客已离开', en: 'The visitor left' },
  'tip.closedVisitorLeft': {
    zh: '访客离开后未回来，对话已自动结束',
    en: 'The visitor left and did not come back: the conversation was closed',
  },
  'tip.robotHandover': { zh: '正在为您转接人工客服', en: 'Connecting you to a person' },
  'tip.visitorBack': { zh: '访客已回来', en: 'The visitor is back' },
  /** A WeChat user sent a kind of message Parley cannot show ({name}: WeChat's MsgType). */
  'tip.unsupportedMessage': { zh: '访客发来一条暂不支持的消息（{name}）', en: 'The visitor sent an unsupported message ({name})' },
  /** Sent to a WeChat user as text when a conversation ends with ratings on: WeChat has no rating form. */
  'tip.ratePrompt': {
    zh: '请为本次服务打分：回复数字 1–5（5 为非常满意）',
    en: 'Please rate this conversation: reply with a number from 1 to 5 (5 is best)',
  },
  /** A WeChat user's score, taken from their reply to the prompt above ({name}: the score). */
  'tip.rated': { zh: '感谢您的评价（{name} 分）', en: 'Thank you for your rating ({name}/5)' },
} as const;
export type TipKind = keyof typeof TIP_TEXTS;

export function tipText(kind: string, name: string, lang: 'zh' | 'en'): string {
  const texts = (TIP_TEXTS as Record<string, { zh: string; en: string } | undefined>)[kind];
  return texts ? texts[lang].replace('{name}', name) : kind;
}
