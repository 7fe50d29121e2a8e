export { TIP_TEXTS, tipText } from '@parley/protocol';

/** Tips written for agents about the visitor; the visitor's own window leaves them out. */
const AGENT_ONLY = new Set(['tip.visitorLeft', 'tip.visitorBack']);

export function shownToVisitor(message: { role: string; msg: string }): boolean {
  return message.role !== 'tip' || !AGENT_ONLY.has(message.msg);
}
