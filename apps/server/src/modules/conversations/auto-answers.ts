/** The texts the `autoAnswer` settings page configures for a conversation's opening; empty means not sent. */
export interface AutoAnswerTexts {
  greeting: string;
  queued: string;
  noAgent: string;
}

/** Reads the texts as they are configured now, so that a change applies to the next conversation. */
export type AutoAnswerSource = () => AutoAnswerTexts;

/** Where a newly opened conversation went, as the auto answers need it. */
export type Opening = { kind: 'agent' } | { kind: 'queued'; position: number } | { kind: 'noAgent' };

/**
 * The auto answers of a conversation that just opened, in the order the visitor reads them: the greeting
 * for a visitor's first conversation, then why nobody answers yet, if so.
 */
export function openingAnswers(texts: AutoAnswerTexts, firstConversation: boolean, opening: Opening): string[] {
  const answers: string[] = [];
  if (firstConversation) answers.push(texts.greeting);
  if (opening.kind === 'queued') answers.push(texts.queued.replaceAll('{position}', String(opening.position)));
  if (opening.kind === 'noAgent') answers.push(texts.noAgent);
  return answers.map((text) => text.trim()).filter((text) => text !== '');
}
