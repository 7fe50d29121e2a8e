// The floor under PostgreSQL's message path: how long a message waits to be stored durably when nothing
// else is done with it. Messages arrive at --rate a second, evenly; one connection writes them as Parley's
// group commit does (everything that arrived while the last write was under way, in one INSERT that
// commits by itself), and each message's latency runs from its arrival to the end of the write that
// stored it. No sockets, no JSON, no routing: what is left is PostgreSQL's statement and its commit (the
// write-ahead log's flush). `--sync off` runs the same with `synchronous_commit = off`, for comparison
// only: Parley acknowledges a message once it is durable.
//
//   DATABASE_URL=postgres://root@127.0.0.1:5432/test node bench/pg-commit.mjs [--rate 1000] [--seconds 20] [--sync on|off] [--json]
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const arg = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const RATE = Number(arg('rate', 1000));
const SECONDS = Number(arg('seconds', 20));
const SYNC = arg('sync', 'on');
const JSON_OUT = process.argv.includes('--json');
const url = process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';

const schema = `bench_commit_${randomBytes(4).toString('hex')}`;
const client = new pg.Client({ connectionString: url });
await client.connect();
await client.query(`create schema ${schema}`);
try {
  await client.query(`set search_path to ${schema}`);
  await client.query(`set synchronous_commit to ${SYNC === 'off' ? 'off' : 'on'}`);
  // A message's row as Parley's is, near enough: a few ids, a short text, a time.
  await client.query(
    'create table messages (id bigserial primary key, visitor_id int not null, seq int not null, msg text not null, created_at text not null)',
  );
  await client.query('create unique index on messages (visitor_id, seq)');

  const now = () => performance.now();
  const total = RATE * SECONDS;
  const arrivals = new Float64Array(total);
  const latencies = new Float64Array(total);
  const start = now() + 100;
  for (let i = 0; i < total; i += 1) arrivals[i] = start + (i * 1000) / RATE;
  let stored = 0;
  let batches = 0;
  const insert = {
    name: 'bench_insert',
    text: `insert into messages (visitor_id, seq, msg, created_at)
      select v, s, 'hello, is this in stock?', now()::text from unnest($1::int[], $2::int[]) as i(v, s)`,
  };
  while (stored < total) {
    const t = now();
    // Everything that has arrived by now goes in this write; when nothing has, wait for the next arrival.
    let upTo = stored;
    while (upTo < total && arrivals[upTo] <= t) upTo += 1;
    if (upTo === stored) {
      // A timer fires up to a millisecond late, where a message on a socket wakes the server at once: the
      // last half millisecond is waited out on the clock, so that the figures are the database's.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, arrivals[stored] - t - 0.5)));
      while (now() < arrivals[stored]) {}
      continue;
    }
    const visitors = [];
    const seqs = [];
    for (let i = stored; i < upTo; i += 1) {
      visitors.push(i % 1000);
      seqs.push(Math.floor(i / 1000) + 1);
    }
    await client.query({ ...insert, values: [visitors, seqs] });
    const done = now();
    for (let i = stored; i < upTo; i += 1) latencies[i] = done - arrivals[i];
    stored = upTo;
    batches += 1;
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  const result = {
    rate: RATE,
    seconds: SECONDS,
    synchronousCommit: SYNC,
    messages: total,
    batches,
    p50: at(50),
    p99: at(99),
    max: sorted.at(-1),
  };
  if (JSON_OUT) console.log(JSON.stringify(result));
  else
    console.log(
      `${total} messages at ${RATE}/s in ${batches} writes (synchronous_commit ${SYNC}): p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, max ${result.max.toFixed(2)} ms`,
    );
} finally {
  await client.query(`drop schema ${schema} cascade`);
  await client.end();
}
