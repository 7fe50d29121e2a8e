import type { RobotTryResult } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

// A bicycle repair shop's knowledge base, and visitors who word their questions their own way: none of the
// English questions below shares a word with the phrasings of the pair it should reach, beyond words
// such as "can", "you" or "do".
const PAIRS = [
  { questions: ['How much is a tune-up?', '保养一次多少钱'], answer: 'A full service is $60. / 全面保养 60 元。' },
  { questions: ['Can you fix a flat tyre?', '补胎吗'], answer: 'Yes, while you wait, $10. / 可以，现场补，10 元。' },
  { questions: ['Do you rent bikes?', '租车吗'], answer: 'City bikes from $15 a day. / 城市车每天 15 元起。' },
  { questions: ['When are you open?', '营业时间'], answer: 'Tuesday to Sunday, 9 am to 6 pm. / 周二到周日 9:00-18:00。' },
  { questions: ['Where is the shop?', '店在哪里'], answer: '12 Harbour Road, next to the station. / 海港路 12 号，车站旁边。' },
];

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer({ ROBOT_SEMANTIC: 'on' });
  admin = await server.login();
  for (const pair of PAIRS) {
    const saved = await server.post('/api/robot/ask/doEdit', pair, { token: admin });
    expect(saved.status).toBe(200);
  }
});
afterAll(() => server.close());

const ask = async (text: string) => (await server.post<RobotTryResult>('/api/robot/try', { text }, { token: admin })).body.data;

describe('the robot at the default threshold', () => {
  it('answers an English question put in other words than any phrasing', async () => {
    for (const [text, answer] of [
      ['the tire is punctured, can you repair it', PAIRS[1]?.answer],
      ['how do I find your store', PAIRS[4]?.answer],
      ['could I hire a bicycle for the weekend', PAIRS[2]?.answer],
      ['what does servicing my bike cost', PAIRS[0]?.answer],
    ]) {
      expect((await ask(text as string))?.answer, text).toBe(answer);
    }
  });

  it('still answers the stored phrasings, in English and in Chinese', async () => {
    for (const pair of PAIRS) for (const question of pair.questions) expect((await ask(question))?.answer, question).toBe(pair.answer);
  });

  it('leaves them unanswered with ROBOT_SEMANTIC=off, the words alone', async () => {
    const wordsOnly = await startTestServer({ ROBOT_SEMANTIC: 'off' });
    try {
      const token = await wordsOnly.login();
      for (const pair of PAIRS) await wordsOnly.post('/api/robot/ask/doEdit', pair, { token });
      const answer = await wordsOnly.post<RobotTryResult>(
        '/api/robot/try',
        { text: 'the tire is punctured, can you repair it' },
        { token },
      );
      expect(answer.body.data).toBeNull();
    } finally {
      await wordsOnly.close();
    }
  });

  it('keeps refusing questions the knowledge base does not cover', async () => {
    // The last: letters the model cannot read, whose vectors lie close to anything else it cannot read.
    for (const text of [
      'who won the football match last night',
      'can you recommend a good pizza place',
      '明天会下雨吗',
      '你们招聘吗',
      'zzqx wvvb kkrtq',
    ]) {
      expect(await ask(text), text).toBeNull();
    }
  });
});
