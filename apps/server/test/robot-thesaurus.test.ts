import type { RobotTryResult } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

// A public library's knowledge base. The visitors below say a word of a phrasing by a WordNet synonym
// (automobile, auto for car) and share no other content word with it: the robot's words alone, without
// the optional meaning model, must reach the pair.
const PAIRS = [
  { questions: ['How long can I borrow a book?', '书可以借多久'], answer: 'Three weeks, renewable twice. / 三周，可续借两次。' },
  { questions: ['Do you have a photocopier?', '有复印机吗'], answer: 'On the ground floor, 10 cents a page. / 一楼，每页一毛。' },
  { questions: ['Is there a fine for late returns?', '逾期归还要罚款吗'], answer: '20 cents a day per item. / 每件每天两毛。' },
  {
    questions: ['Can I reserve a study room?', '可以预约自习室吗'],
    answer: 'Yes, at the desk or online, two hours at most. / 可以，前台或网上，最多两小时。',
  },
  { questions: ['Where can I park my car?', '哪里可以停车'], answer: 'Behind the building, free for members. / 楼后，会员免费。' },
  { questions: ['How do I track my reservation?', '怎么查预约'], answer: 'Under "My loans" in your account. / 在账户的“我的借阅”里。' },
];

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer({ ROBOT_SEMANTIC: 'off' });
  admin = await server.login();
  for (const pair of PAIRS) {
    const saved = await server.post('/api/robot/ask/doEdit', pair, { token: admin });
    expect(saved.status).toBe(200);
  }
});
afterAll(() => server.close());

const ask = async (text: string) => (await server.post<RobotTryResult>('/api/robot/try', { text }, { token: admin })).body.data;

describe('the robot reads English synonyms at the default threshold', () => {
  it('answers a question that says a stored word by its synonym', async () => {
    for (const [text, answer] of [
      ['where do I leave my automobile', PAIRS[4]?.answer],
      ['where do I put my auto', PAIRS[4]?.answer],
    ]) {
      expect((await ask(text as string))?.answer, text).toBe(answer);
    }
  });

  it('ranks the stored phrasings themselves first, in English and in Chinese', async () => {
    for (const pair of PAIRS) {
      for (const question of pair.questions) {
        const found = await ask(question);
        expect(found?.answer, question).toBe(pair.answer);
        expect(found?.score, question).toBe(1);
      }
    }
  });

  it('does not stretch synonyms to questions the base does not cover', async () => {
    // "dog" is also a verb meaning to track; a visitor's dog is the animal, the word's most used sense.
    for (const text of [
      'who won the football match last night',
      'can I bring my dog',
      'do you sell concert tickets',
      'is there a swimming pool',
      '明天会下雨吗',
    ]) {
      expect(await ask(text), text).toBeNull();
    }
  });
});
