import { z } from 'zod';
import { avatarUrl, deleteBody, type ListData, pageQuery } from './api.js';
import { endpointGroup, returns } from './endpoint.js';
import { line, multiline } from './strings.js';

// The robots of CONTRACT §7 and §8: a question-answer knowledge base and the smart robot that answers from it.

export const MAX_ROBOT_QUESTIONS = 20;
export const MAX_ROBOT_QUESTION_LENGTH = 200;
export const MAX_ROBOT_ANSWER_LENGTH = 2000;
/** The largest CSV a knowledge-base import accepts. */
export const MAX_ROBOT_IMPORT_BYTES = 2 * 1024 * 1024;

/** One question-answer pair: several phrasings of one question, one answer. */
export interface RobotAsk {
  id: number;
  questions: string[];
  /** Plain text; web addresses in it are drawn as links. */
  answer: string;
  /** An optional picture shown under the answer (a web address or the server's own upload path). */
  image: string;
  category: string;
  enabled: boolean;
  /** How many times the robot gave this answer. */
  hits: number;
  /** How many times agents sent this answer as it was suggested to them (agent assist). */
  assists: number;
  created_at: string;
  updated_at: string;
}

const question = line(z.string().trim().min(1).max(MAX_ROBOT_QUESTION_LENGTH));

export const robotAskListQuery = pageQuery.extend({
  keyword: line(z.string().trim().max(100)).optional(),
  category: line(z.string().trim().max(64)).optional(),
  enabled: z.enum(['true', 'false']).optional(),
});

export const robotAskEditBody = z.object({
  id: z.coerce.number().int().positive().optional(),
  questions: z.array(question).min(1).max(MAX_ROBOT_QUESTIONS),
  answer: multiline(z.string().trim().min(1).max(MAX_ROBOT_ANSWER_LENGTH)),
  image: avatarUrl.optional(),
  category: line(z.string().trim().max(64)).optional(),
  enabled: z.boolean().default(true),
});

export const robotTryBody = z.object({ text: multiline(z.string().trim().min(1).max(MAX_ROBOT_ANSWER_LENGTH)) });

/** A pair the matcher found, with its score (0..1, higher is closer). */
export interface RobotMatch {
  id: number;
  /** The stored phrasing that matched best. */
  question: string;
  answer: string;
  image: string;
  score: number;
}

/** `POST /api/robot/try`: the best match above the threshold, or null; `suggestions` are the runners-up. */
export type RobotTryResult = (RobotMatch & { suggestions: RobotMatch[] }) | null;

export interface RobotImportResult {
  /** New pairs stored. */
  created: number;
  /** Existing pairs (same first question) whose answer was replaced. */
  updated: number;
  /** Rows that were refused, by CSV line (1 is the header), with why; nothing else of the file is lost. */
  errors: { line: number; message: string }[];
}

export const ROBOT_MODES = ['first', 'offline'] as const;
export type RobotMode = (typeof ROBOT_MODES)[number];

/** The smart robot (CONTRACT §8), `GET`/`POST /api/robot/high`. */
/**
 * The base URL of a service the server calls (a language model, embeddings): http(s), without
 * credentials, a query or a fragment, which would otherwise take over the path the server appends.
 */
export const serviceBaseUrl = z
  .url({ protocol: /^https?$/ })
  .max(512)
  .refine(
    (value) => !/[?#]/.test(value) && !/^https?:\/\/[^/]*@/i.test(value),
    'must be an http(s) address without credentials, query or fragment',
  );

/**
 * An OpenAI-compatible endpoint the robot may call (a language model, an embeddings model): off until
 * enabled, its key write-only — answered back as `''` with `hasApiKey` beside it, and an unchanged `''`
 * keeps the stored key.
 */
const modelService = () =>
  z
    .object({
      enabled: z.boolean().default(false),
      baseUrl: z.union([z.literal(''), serviceBaseUrl]).default(''),
      model: line(z.string().trim().max(128)).default(''),
      apiKey: line(z.string().trim().max(512)).default(''),
      timeoutMs: z.number().int().min(500).max(60_000).default(8000),
    })
    .prefault({});

export const robotHighSettings = z.object({
  enabled: z.boolean().default(false),
  name: line(z.string().trim().min(1).max(32)).default('Parley'),
  avatar: avatarUrl.default(''),
  mode: z.enum(ROBOT_MODES).default('offline'),
  welcome: multiline(z.string().trim().max(500)).default(''),
  unknownReply: multiline(z.string().trim().max(500)).default(''),
  handoverKeywords: z
    .array(line(z.string().trim().min(1).max(32)))
    .max(50)
    .default([]),
  /** Misses in a row after which the visitor is handed to a person; 0 never. */
  handoverAfterUnknown: z.number().int().min(0).max(20).default(3),
  /** The lowest score (0..1) that counts as an answer. */
  threshold: z.number().min(0).max(1).default(0.5),
  /** Optional answers composed by a language model behind an OpenAI-compatible endpoint, grounded on the pairs. */
  llm: modelService(),
  /**
   * Optional sentence embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (a local Ollama, say):
   * when enabled they take the place of the built-in English model, for every language the endpoint's
   * model reads. The key is write-only, as the language model's is.
   */
  embeddings: modelService(),
});
export type RobotHighSettings = z.output<typeof robotHighSettings>;

/** What `GET`/`POST /api/robot/high` answer: the keys as '' and whether each is stored. */
export type RobotHighAnswer = Omit<RobotHighSettings, 'llm' | 'embeddings'> & {
  llm: RobotHighSettings['llm'] & { hasApiKey: boolean };
  embeddings: RobotHighSettings['embeddings'] & { hasApiKey: boolean };
};

/**
 * A question visitors asked the robot in real chats (never `POST /api/robot/try`), counted once per
 * wording as the matcher reads it: the pair it reached, or `pairId` 0 when none did (unanswered).
 */
export interface RobotQuestion {
  id: number;
  /** The wording as last asked. */
  text: string;
  pairId: number;
  /** How many times it was asked. */
  times: number;
  last_at: string;
}

/** `pairId` 0 lists the unanswered questions (those dismissed left out), most asked first; else the pair's. */
export const robotQuestionListQuery = pageQuery.extend({ pairId: z.coerce.number().int().min(0) });

/** Agent-assist figures: how many sent messages came from an inserted suggestion. */
export interface RobotAssistFigures {
  used: number;
}

/**
 * Agent assist (`8016`, to the conversation's agent only): a visitor's message matched a pair above the
 * robot's threshold, and the workbench offers its answer. `onlyID` is the visitor's message.
 */
export interface RobotAssist {
  YQToken: string;
  onlyID: string;
  pairId: number;
  /** The stored phrasing the message matched. */
  question: string;
  answer: string;
  score: number;
}

export const robotEndpoints = endpointGroup({
  'GET /api/robot/ask/getList': { query: robotAskListQuery, response: returns<ListData<RobotAsk>>() },
  'POST /api/robot/ask/doEdit': { body: robotAskEditBody, response: returns<{ id: number }>() },
  'POST /api/robot/ask/doDelete': {
    body: z.object({ ids: z.array(z.coerce.number().int().positive()).min(1).max(100) }),
    response: returns<void>(),
  },
  /** Multipart, one CSV file (`question`, `answer`, `category`, `enabled`; several phrasings separated by new lines). */
  'POST /api/robot/ask/import': { response: returns<RobotImportResult>() },
  /** `text/csv; charset=utf-8` with a BOM, the columns the import reads. */
  'GET /api/robot/ask/export': { query: robotAskListQuery.omit({ pageNo: true, pageSize: true }), response: returns<void>(), raw: true },
  'POST /api/robot/try': { body: robotTryBody, response: returns<RobotTryResult>() },
  'GET /api/robot/high': { response: returns<RobotHighAnswer>() },
  'POST /api/robot/high': { body: robotHighSettings, response: returns<RobotHighAnswer>() },
  'GET /api/robot/question/getList': { query: robotQuestionListQuery, response: returns<ListData<RobotQuestion>>() },
  /** Sets unanswered questions aside: they leave the list, and asking them again does not bring them back. */
  'POST /api/robot/question/dismiss': { body: deleteBody, response: returns<void>() },
  'GET /api/robot/assist': { response: returns<RobotAssistFigures>() },
});
