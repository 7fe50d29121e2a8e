import { createHash, randomUUID } from 'node:crypto';
import { ABROAD_REGION_CODE, AGENT_ROLE } from '@parley/protocol';
import { type Insertable, sql } from 'kysely';
import { loadConfig } from './config.js';
import { type Db, migrate, openStorage } from './db/index.js';
import type { Database } from './db/schema.js';
import { forwardStep, insertMessageGrams, withSearchIndexedAfter } from './db/search.js';
import { seed } from './db/seed.js';
import { firstAdminNotice, serverUrl } from './lib/first-admin.js';
import { hashPassword } from './lib/password.js';
import { rebuildCensusDays } from './modules/census/rebuild.js';
import { sourceOf } from './modules/visitors/client-info.js';

/**
 * `npm run demo [-- --scale <n>]`: fills the configured database with a year of a lived-in site, through
 * the server's own migrations: visitors from search engines with keywords, regions, devices,
 * conversations with five demo agents, ratings, letters, robot answers and agents' state changes.
 * Deterministic: the same scale gives the same data. Scale 1 is a small shop (about 25,000 visits);
 * scale 100 the busy site of the statistics benchmark (2.5 million visits, 308,000 conversations).
 */

/** mulberry32: small, fast, and the same sequence on every machine. */
function rng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = rng(20240601);
/** A visitor's phone number, the same wherever they give it. */
const phoneOf = (id: number) => `138${String(id).padStart(8, '0').slice(-8)}`;
const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
function weighted<T>(items: readonly (readonly [T, number])[]): T {
  const total = items.reduce((sum, [, weight]) => sum + weight, 0);
  let pick = random() * total;
  for (const [item, weight] of items) {
    pick -= weight;
    if (pick < 0) return item;
  }
  return (items[items.length - 1] as readonly [T, number])[0];
}

const ENGINES = [
  ['Baidu', 'https://www.baidu.com/s?wd=', 40],
  ['Google', 'https://www.google.com/search?q=', 12],
  ['Bing', 'https://www.bing.com/search?q=', 8],
  ['Sogou', 'https://www.sogou.com/web?query=', 6],
  ['360', 'https://www.so.com/s?q=', 6],
  ['', '', 28],
] as const;
const KEYWORDS = [
  ['在线客服系统', 10],
  ['客服软件', 8],
  ['网站在线咨询', 6],
  ['免费客服系统', 5],
  ['智能客服机器人', 4],
  ['live chat software', 4],
  ['customer service chat', 3],
  ['website chat widget', 2],
  ['客服系统 价格', 3],
  ['在线客服 私有部署', 2],
] as const;
const REFERRERS = [
  ['https://www.zhihu.com/question/2024', 3],
  ['https://mp.weixin.qq.com/s/demo', 4],
  ['https://www.v2ex.com/t/1000', 1],
  ['', 12],
] as const;
/** Provinces by visitors: code, name with a city, weight. */
const PROVINCES = [
  ['440300', '广东省深圳市', 16],
  ['440100', '广东省广州市', 10],
  ['310000', '上海市', 12],
  ['110000', '北京市', 11],
  ['330100', '浙江省杭州市', 9],
  ['320500', '江苏省苏州市', 6],
  ['510100', '四川省成都市', 5],
  ['420100', '湖北省武汉市', 4],
  ['370200', '山东省青岛市', 4],
  ['350200', '福建省厦门市', 3],
  ['610100', '陕西省西安市', 3],
  ['500000', '重庆市', 3],
  ['430100', '湖南省长沙市', 2],
  ['410100', '河南省郑州市', 2],
] as const;
const ABROAD = [
  ['美国', 3],
  ['日本', 2],
  ['新加坡', 1],
  ['德国', 1],
] as const;
const DEVICES: readonly (readonly [readonly [string, string, string, string], number])[] = [
  [
    [
      'Windows',
      'Chrome',
      'desktop',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    ],
    40,
  ],
  [
    [
      'macOS',
      'Safari',
      'desktop',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    ],
    12,
  ],
  [
    [
      'iOS',
      'Safari',
      'mobile',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    ],
    22,
  ],
  [
    [
      'Android',
      'Chrome',
      'mobile',
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
    ],
    24,
  ],
  [['Linux', 'Firefox', 'desktop', 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0'], 2],
] as const;
const PAGES = [
  ['https://shop.example/', '首页'],
  ['https://shop.example/pricing', '价格'],
  ['https://shop.example/docs', '文档'],
  ['https://shop.example/download', '下载'],
  ['https://shop.example/contact', '联系我们'],
] as const;
const QUESTIONS = [
  '你好，在吗？',
  '请问怎么收费？',
  '支持私有部署吗？',
  '可以开发票吗？',
  'How do I install the widget?',
  '有试用吗？',
  '手机上能用吗？',
];
const ANSWERS = [
  '您好，很高兴为您服务！',
  '价格页面有详细说明，我发给您。',
  '支持的，可以部署在您自己的服务器上。',
  'Sure, paste the script tag before </body>.',
  '可以免费试用 14 天。',
];
/** What a visitor asks about in particular: a product, an order, a phone number (so that a search finds few). */
const PRODUCTS = [
  '旗舰版',
  '专业版',
  '基础版',
  '企业微信插件',
  '数据导出',
  '机器人套餐',
  'Team plan',
  'Widget SDK',
  'API access',
  'Mobile app',
];
const SURNAMES = ['王', '李', '张', '刘', '陈', '杨', '黄', '赵', '吴', '周', '徐', '孙', '马', '朱', '胡', '郭', '何', '林', '罗', '高'];
const GIVEN = [
  '伟',
  '芳',
  '娜',
  '敏',
  '静',
  '丽',
  '强',
  '磊',
  '洋',
  '艳',
  '勇',
  '军',
  '杰',
  '娟',
  '涛',
  '明',
  '超',
  '秀英',
  '晓东',
  '海燕',
];
interface Particulars {
  order: string;
  phone: string;
  product: string;
}
const PARTICULAR: ((about: Particulars) => string)[] = [
  ({ order }) => `订单 ${order} 什么时候发货？`,
  ({ product }) => `${product}的价格是多少？`,
  ({ phone }) => `我的手机号是 ${phone}，麻烦回电。`,
  ({ order }) => `Order ${order} has not arrived yet, can you check?`,
  ({ product }) => `Does the ${product} include support?`,
  ({ order, product }) => `${product}和旗舰版有什么区别？订单号 ${order}`,
];
const COMMENTS = ['', '', '', '很耐心，谢谢', '回复很快', '问题解决了', 'Very helpful', '等了有点久'];
const AGENTS = ['小周', '小李', 'Emma', '阿杰', 'Lucy'];

const DAY_MS = 86_400_000;
/** Busier on weekdays and working hours (China time), as a shop's site is. */
const HOURS = [1, 1, 1, 1, 1, 2, 3, 5, 8, 10, 10, 9, 7, 8, 9, 9, 8, 7, 6, 6, 5, 4, 3, 2].map((weight, hour) => [hour, weight] as const);

/** Rows a demo statement writes at once. */
const BATCH = 400;

/** `rows` a batch at a time. */
async function inBatches<T>(rows: T[], write: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let at = 0; at < rows.length; at += BATCH) await write(rows.slice(at, at + BATCH));
}

function insertMany<T extends keyof Database>(db: Db, table: T, rows: Insertable<Database[T]>[]) {
  return inBatches(rows, (batch) =>
    db
      .insertInto(table)
      .values(batch as never)
      .execute(),
  );
}

/** PostgreSQL: the messages' rows of the search index (`db/search.ts`), grams computed as the database does. */
function insertGrams(db: Db, messages: Insertable<Database['messages']>[]) {
  return inBatches(messages, (batch) =>
    insertMessageGrams(
      db,
      batch.map((message) => ({ id: Number(message.id), msg: message.msg })),
    ),
  );
}

async function main() {
  const args = process.argv.slice(2);
  const scaleAt = args.indexOf('--scale');
  const scale = scaleAt >= 0 ? Number(args[scaleAt + 1]) : 1;
  if (!Number.isFinite(scale) || scale <= 0 || scale > 1000) throw new Error('--scale takes a number between 0 and 1000');
  const config = loadConfig(process.env, new URL('../../..', import.meta.url).pathname);
  const storage = await openStorage(config);
  const { db } = storage;
  await migrate(storage);
  const seeded = await seed(db, config.adminUsername, config.adminPassword);
  if (seeded.generatedPassword) {
    // The demo's agents may not open the statistics: without this line no one could sign in as the admin.
    const signInAt = config.publicUrl ?? serverUrl(config.host, config.port);
    process.stdout.write(firstAdminNotice(seeded.createdAdmin ?? config.adminUsername, seeded.generatedPassword, signInAt));
  }
  const already = await db.selectFrom('visitors').select('id').limit(1).executeTakeFirst();
  if (already) throw new Error('This database already has visitors: run the demo on an empty one.');

  const role = await db.selectFrom('roles').select('id').where('name', '=', AGENT_ROLE).executeTakeFirstOrThrow();
  const password = await hashPassword('demo-pass-123');
  const created = new Date(Date.now() - 366 * DAY_MS).toISOString();
  const agents = AGENTS.map((nickname, index) => ({ uuid: randomUUID(), nickname, username: `demo${index + 1}` }));
  for (const agent of agents) {
    await db
      .insertInto('agents')
      .values({
        ...agent,
        avatar: '',
        password_hash: password,
        role_id: role.id,
        state: '0',
        max_chats: 8,
        disabled: 0,
        pending: 0,
        created_at: created,
        updated_at: created,
      })
      .execute();
  }

  const ids = { visitor: 0, conversation: 0, message: 0 };
  const perDay = (20_000 * scale) / 365 / 1.6;
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  let totals = { visitors: 0, visits: 0, conversations: 0, messages: 0 };
  // A day's rows are written in a transaction of their own, which holds only that day's rows (each visitor
  // with their conversations and messages). On PostgreSQL the database's work is most of the writing and a
  // connection uses one core: a day is written while the day before it still is, on another connection,
  // and the next is made here. SQLite has one writer, so one day at a time.
  let writing: Promise<void> = Promise.resolve();
  const writeYear = async () => {
    for (let day = 365; day >= 0; day -= 1) {
      const dayStart = today - day * DAY_MS - 8 * 3_600_000;
      const weekday = new Date(dayStart + 8 * 3_600_000).getUTCDay();
      const growth = 0.7 + 0.6 * ((365 - day) / 365);
      const count = Math.round(perDay * growth * (weekday === 0 || weekday === 6 ? 0.6 : 1.15) * (0.85 + random() * 0.3));
      const visitors: Insertable<Database['visitors']>[] = [];
      const visits: Insertable<Database['visits']>[] = [];
      const conversations: Insertable<Database['conversations']>[] = [];
      const messages: Insertable<Database['messages']>[] = [];
      const letters: Insertable<Database['letters']>[] = [];
      const states: Insertable<Database['agent_state_log']>[] = [];
      for (const agent of agents) {
        // A working day: online in the morning, hidden at lunch, online again, offline at night.
        if (weekday === 0 || random() < 0.1) continue;
        const at = (hour: number) => new Date(dayStart + hour * 3_600_000 + int(0, 1_200_000)).toISOString();
        for (const [hour, state] of [
          [9, 'online'],
          [12, 'hidden'],
          [13, 'online'],
          [18, 'offline'],
        ] as const) {
          states.push({ agent_uuid: agent.uuid, state, at: at(hour) });
        }
      }
      for (let n = 0; n < count; n += 1) {
        ids.visitor += 1;
        const id = ids.visitor;
        const arrived = dayStart + weighted(HOURS) * 3_600_000 + int(0, 3_599_000);
        const [engine, prefix] = weighted(ENGINES.map((e) => [e, e[2]] as const));
        const keyword = engine ? weighted(KEYWORDS) : '';
        const referrer = engine ? `${prefix}${encodeURIComponent(keyword)}` : weighted(REFERRERS);
        const abroad = random() < 0.06;
        const [code, region] = abroad ? [ABROAD_REGION_CODE, weighted(ABROAD)] : weighted(PROVINCES.map((p) => [p, p[2]] as const));
        const [platform, browser, device, userAgent] = weighted(DEVICES);
        const pages = int(1, 3);
        const iso = (ms: number) => new Date(ms).toISOString();
        const talks = random() < 0.25;
        let seq = 0;
        let last = arrived + pages * 40_000;
        if (talks) {
          ids.conversation += 1;
          const agent = agents[int(0, agents.length - 1)] as (typeof agents)[number];
          const started = arrived + int(20_000, 120_000);
          const firstSeq = seq + 1;
          let at = started;
          let count = 0;
          let firstResponse: number | null = null;
          const say = (role: string, msg: string, serviceId: string | null, nickname: string) => {
            seq += 1;
            count += role === 'tip' ? 0 : 1;
            messages.push({
              visitor_id: id,
              seq,
              only_id: `demo-${id}-${seq}`,
              role,
              type: 'text',
              msg,
              nickname,
              service_id: serviceId,
              withdrawn: 0,
              created_at: iso(at),
            });
          };
          if (random() < 0.2) say('robot', '您好，我是智能助手，请问有什么可以帮您？', null, 'Parley');
          const turns = int(2, 6);
          for (let turn = 0; turn < turns; turn += 1) {
            at += int(5_000, 60_000);
            const particular = random() < 0.35 ? PARTICULAR[int(0, PARTICULAR.length - 1)] : undefined;
            say(
              'user',
              particular
                ? particular({
                    order: `PL${int(10_000_000, 99_999_999)}`,
                    phone: phoneOf(id),
                    product: PRODUCTS[int(0, PRODUCTS.length - 1)] as string,
                  })
                : (QUESTIONS[int(0, QUESTIONS.length - 1)] as string),
              null,
              `V${id}`,
            );
            const wait = int(3_000, turn === 0 ? 90_000 : 40_000);
            at += wait;
            if (firstResponse === null) firstResponse = wait;
            say('service', ANSWERS[int(0, ANSWERS.length - 1)] as string, agent.uuid, agent.nickname);
          }
          last = at + 30_000;
          const rated = random() < 0.45;
          conversations.push({
            id: ids.conversation,
            visitor_id: id,
            service_id: agent.uuid,
            first_seq: firstSeq,
            last_seq: seq,
            score: rated
              ? weighted([
                  [5, 55],
                  [4, 25],
                  [3, 10],
                  [2, 5],
                  [1, 5],
                ] as const)
              : null,
            comment: rated ? (COMMENTS[int(0, COMMENTS.length - 1)] as string) : '',
            started_at: iso(started),
            ended_at: iso(last),
            messages: count,
            first_response_ms: firstResponse,
          });
          totals.conversations += 1;
          totals.messages += count;
        } else if (random() < 0.01) {
          letters.push({
            visitor_id: id,
            name: `访客${id}`,
            phone: phoneOf(id),
            email: '',
            content: '请尽快联系我，想了解报价。',
            ip: '',
            read: day > 3 ? 1 : 0,
            created_at: new Date(arrived + 60_000).toISOString(),
            read_at: null,
          });
        }
        // One talker in five left a name and a phone number.
        const introduced = talks && random() < 0.2;
        visitors.push({
          id,
          token_hash: createHash('sha256').update(`demo-visitor-${id}`).digest('hex'),
          // 16 characters at least, as every visitor id is (the console opens a visitor by it).
          public_id: `demo${id.toString(36).padStart(12, '0')}`,
          name: introduced ? `${SURNAMES[int(0, SURNAMES.length - 1)]}${GIVEN[int(0, GIVEN.length - 1)]}` : '',
          phone: introduced ? phoneOf(id) : '',
          email: '',
          channel: 'web',
          state: 'end',
          service_id: null,
          online: 0,
          unread: 0,
          umsg: 0,
          smsg: 0,
          last_seq: seq,
          ip: '',
          region,
          region_code: code,
          user_agent: userAgent,
          platform,
          browser,
          device,
          referrer,
          source: sourceOf(referrer),
          engine,
          keyword,
          first_url: PAGES[0][0],
          lang: 'zh-CN',
          wait_since: null,
          created_at: iso(arrived),
          last_seen_at: iso(last),
          link_id: null,
        });
        for (let page = 0; page < pages; page += 1) {
          const [url, title] = PAGES[page === 0 ? 0 : int(1, PAGES.length - 1)] as readonly [string, string];
          visits.push({ visitor_id: id, url, title, created_at: iso(arrived + page * 40_000) });
        }
        totals.visitors += 1;
        totals.visits += pages;
      }
      // In the order they were said, as a live site stores them: their ids follow time, as a search's ranking
      // by newest match expects (a stable sort keeps one visitor's lines said at the same instant in order).
      messages.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
      for (const message of messages) {
        ids.message += 1;
        message.id = ids.message;
      }
      const visitsSoFar = totals.visits;
      const written = db
        .transaction()
        .execute(async (tx) => {
          await insertMany(tx, 'visitors', visitors);
          await insertMany(tx, 'visits', visits);
          await insertMany(tx, 'conversations', conversations);
          await insertMany(tx, 'messages', messages);
          // PostgreSQL: the messages' grams go in beside them, computed here (the database's own function, row
          // by row, took longer than writing the year).
          if (storage.dialect === 'postgres') await insertGrams(tx, messages);
          await insertMany(tx, 'letters', letters);
          await insertMany(tx, 'agent_state_log', states);
        })
        .then(() => {
          if (day % 30 === 0) process.stdout.write(`… ${365 - day + 1} days, ${visitsSoFar} visits\n`);
        });
      // Awaited below, or with the next day's: a failure stops the demo there.
      written.catch(() => {});
      if (storage.dialect === 'postgres') {
        await writing;
        writing = written;
      } else await written;
    }
    await writing;
  };
  const written = () =>
    process.stdout.write(
      `Demo year written: ${totals.visitors} visitors, ${totals.visits} visits, ${totals.conversations} conversations, ${totals.messages} messages; agents demo1…demo5 (password demo-pass-123).\n`,
    );
  // The rows went in around the server: the statistics' daily rollup is counted from them now, not on first read.
  const rollup = async () => {
    const rebuilt = await rebuildCensusDays(storage, config.siteTimeZone);
    process.stdout.write(`Statistics' daily rollup counted for ${rebuilt.zone} in ${rebuilt.ms} ms.\n`);
  };
  if (storage.dialect === 'postgres') {
    const writeAndNumber = async () => {
      await writeYear();
      // Rows came with their ids: the sequences move past them so the server's own inserts do not collide.
      for (const table of ['visitors', 'conversations', 'messages']) {
        await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${sql.table(table)}))`.execute(db);
      }
      written();
    };
    // The rollup reads no search index: it is counted while the indexes are built.
    await withSearchIndexedAfter(db, writeAndNumber, ['message_search'], (line) => process.stdout.write(`Search index ${line}.\n`), rollup);
    // As autovacuum would in time: each table's statistics, and its visibility map, without which every read
    // "from the index alone" still fetched each row (a surname's 12,543 visitors' newest messages: 214 → 20 ms
    // for a thousand). A site's own bulk load wants the same.
    const started = Date.now();
    for (const table of ['messages', 'visitors', 'visits', 'conversations', 'message_search', 'visitor_search'])
      await sql`vacuum (analyze) ${sql.table(table)}`.execute(db);
    process.stdout.write(`Tables vacuumed and analysed in ${Date.now() - started} ms.\n`);
  } else {
    await writeYear();
    written();
    await rollup();
  }
  // On SQLite the server's indexer takes new rows in a moment, a few hundred at a time: the demo's are indexed now, in large steps.
  if (storage.dialect === 'sqlite') {
    const started = Date.now();
    for (const index of ['message_search', 'visitor_search'] as const) while ((await forwardStep(storage.db, index, 20_000)) === 20_000) {}
    process.stdout.write(`Search indexes built in ${Date.now() - started} ms.\n`);
  }
  // The database was empty and none of the demo's messages names an upload: the upload sweep of a server
  // started on it goes on after them instead of reading them all once.
  await db
    .updateTable('upload_marks')
    .set({ messages_up_to: sql<number>`(select coalesce(max(id), 0) from messages)` })
    .where('id', '=', 1)
    .execute();
  totals = { visitors: 0, visits: 0, conversations: 0, messages: 0 };
  await storage.close();
}

await main();
