// A webhook receiver for the benches, in a process of its own so that its work is not the measuring
// process's: answers every POST with 204 and counts each `Parley-Delivery`, and any that comes twice.
//
//   const receiver = await startReceiver();  // { url, count(), stop() }
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

/** Starts the receiver's process; `count()` answers `{ received, duplicates, lastAt }` (lastAt: epoch ms). */
export async function startReceiver() {
  const child = fork(fileURLToPath(import.meta.url));
  const { url } = await new Promise((resolve) => child.once('message', resolve));
  const count = () =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send('count');
    });
  return { url, count, stop: () => child.send('stop') };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // BENCH_RECEIVER_NICE: the receiver stands for a system on another machine; at a low priority its work
  // takes little from the server's on these shared cores.
  if (process.env.BENCH_RECEIVER_NICE) setPriority(Number(process.env.BENCH_RECEIVER_NICE));
  let received = 0;
  let duplicates = 0;
  let lastAt = 0;
  const seen = new Set();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['parley-delivery'];
      if (seen.has(id)) duplicates += 1;
      seen.add(id);
      received += 1;
      lastAt = Date.now();
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ url: `http://127.0.0.1:${server.address().port}/hook` }));
  // The bench that started it ended (a crash too): so does it.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message) => {
    if (message === 'count') process.send?.({ received, duplicates, lastAt });
    if (message === 'stop') server.close(() => process.exit(0));
  });
}
