import type { RobotHighSettings } from '@parley/protocol';
import { type Lang, translate } from '../../lib/i18n.js';
import { appendPath, type OutboundClient } from '../../lib/outbound.js';
import { type Match, normalize } from './matcher.js';
import type { RobotService } from './service.js';

/** What the robot says to one visitor message. */
export type RobotReply =
  | { kind: 'answer'; text: string; image: string; pairId: number | null }
  | { kind: 'unknown'; text: string; suggestions: string[] };

/** The robot as a visitor sees it (`9000`). */
export interface RobotProfile {
  name: string;
  avatar: string;
}

/** The word a language model is told to answer with when the knowledge base does not answer the question. */
const NO_ANSWER = 'NO_ANSWER';

/** A chat completion's answer is a few KB; anything much larger is not one. */
const MODEL_ANSWER_MAX_BYTES = 256 * 1024;

/**
 * Composes the smart robot's answers (CONTRACT §8) from the knowledge base: the closest pair above the
 * threshold, else the unknown reply with the runners-up as suggestions. With a language model configured,
 * the answer is written by the model from the closest pairs only; when the model fails, is too slow, or
 * says the pairs do not answer, the visitor gets the unknown reply, never an error.
 */
export class RobotResponder {
  constructor(
    private readonly robots: RobotService,
    private readonly onError: (error: unknown) => void,
    private readonly outbound: OutboundClient,
  ) {}

  settings(): RobotHighSettings {
    return this.robots.currentHigh();
  }

  profile(): RobotProfile {
    const { name, avatar } = this.settings();
    return { name, avatar };
  }

  /** Whether the message names one of the hand-over keywords ("人工", "agent", …), compared as the matcher reads text. */
  wantsPerson(text: string): boolean {
    const said = ` ${normalize(text)} `;
    return this.settings().handoverKeywords.some((keyword) => {
      const word = normalize(keyword);
      if (word === '') return false;
      // Latin keywords match whole words ("agent" is not in "agenda"); Chinese has no spaces to look for.
      return /^[a-z0-9 ]+$/.test(word) ? said.includes(` ${word} `) : said.includes(word);
    });
  }

  async reply(text: string, lang: Lang): Promise<RobotReply> {
    const settings = this.settings();
    const { best, suggestions } = await this.robots.match(text);
    const unknown: RobotReply = {
      kind: 'unknown',
      text: settings.unknownReply || translate(lang, 'robotUnknownReply'),
      suggestions: suggestions.map((match) => match.question),
    };
    const answer = await this.answer(text, lang, settings, best, suggestions);
    // Logged whatever it was (the unanswered list, the questions each pair reached); written later, in a batch.
    this.robots.noteQuestion(text, answer?.pairId ?? null);
    return answer ?? unknown;
  }

  /** The answer from the closest pair (or written by the language model from the closest ones); null for none. */
  private async answer(
    text: string,
    lang: Lang,
    settings: RobotHighSettings,
    best: Match | null,
    suggestions: Match[],
  ): Promise<Extract<RobotReply, { kind: 'answer' }> | null> {
    const llm = settings.llm;
    if (llm.enabled && llm.baseUrl && llm.model) {
      const grounding = best ? [best, ...suggestions] : suggestions;
      if (grounding.length === 0) return null;
      const composed = await this.compose(text, grounding, lang, llm);
      if (composed === null) return null;
      if (best) await this.robots.recordHit(best.id);
      return { kind: 'answer', text: composed, image: best?.image ?? '', pairId: best?.id ?? null };
    }
    if (!best) return null;
    await this.robots.recordHit(best.id);
    return { kind: 'answer', text: best.answer, image: best.image, pairId: best.id };
  }

  /** An OpenAI-compatible chat completion grounded on `pairs`; null on failure, timeout or no answer. */
  private async compose(question: string, pairs: Match[], lang: Lang, llm: RobotHighSettings['llm']): Promise<string | null> {
    const knowledge = pairs.map((pair, index) => `${index + 1}. Q: ${pair.question}\n   A: ${pair.answer}`).join('\n');
    const system = [
      'You are a customer-service assistant on a website chat.',
      'Answer the visitor only from the knowledge below; do not add facts it does not contain.',
      `If the knowledge does not answer the question, reply with exactly ${NO_ANSWER}.`,
      `Reply in ${lang === 'en' ? 'English' : 'Chinese'}, briefly, in plain text.`,
      '',
      'Knowledge:',
      knowledge,
    ].join('\n');
    try {
      // Through the outbound guard: the URL is a user's, so it may not reach the server's own network.
      const response = await this.outbound.request(appendPath(llm.baseUrl, 'chat/completions'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}` } : {}) },
        body: JSON.stringify({
          model: llm.model,
          temperature: 0.2,
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: question },
          ],
        }),
        timeoutMs: llm.timeoutMs,
        maxBytes: MODEL_ANSWER_MAX_BYTES,
      });
      if (response.status < 200 || response.status >= 300) throw new Error(`the language model answered HTTP ${response.status}`);
      const body = JSON.parse(response.text) as { choices?: { message?: { content?: unknown } }[] };
      const content = body.choices?.[0]?.message?.content;
      const answer = typeof content === 'string' ? content.trim() : '';
      if (answer === '' || answer.includes(NO_ANSWER)) return null;
      return answer.slice(0, 2000);
    } catch (error) {
      this.onError(error);
      return null;
    }
  }
}
