// A webhook receiver for the benches, in a process of its own so that its work is not the measuring
// process's: answers every POST with 204 and, on `count` from its parent, replies with what it has had.
//
//   const child = fork('bench/receiver.mjs'); child.once('message', ({ url }) => …)
import { createServer } from 'node:http';

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
process.on('message', (message) => {
  if (message === 'count') process.send?.({ received, duplicates, lastAt });
  if (message === 'stop') server.close(() => process.exit(0));
});
