// The outbound thread's program (see outbound-thread.ts): takes lists of calls, makes each through the
// guard, and answers them a turn's worth at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { OutboundClient, OutboundError } from './outbound.js';
import type { ThreadCall, ThreadReply } from './outbound-thread.js';

if (!parentPort) throw new Error('the outbound program runs on a thread');
const port = parentPort;
const client = new OutboundClient((workerData as { allow: string[] }).allow);
let replies: ThreadReply[] = [];

function answer(reply: ThreadReply): void {
  replies.push(reply);
  if (replies.length > 1) return;
  setImmediate(() => {
    const out = replies;
    replies = [];
    port.postMessage(out);
  });
}

port.on('message', (calls: ThreadCall[]) => {
  for (const { id, url, options } of calls)
    client.request(url, options).then(
      (response) => answer({ id, response }),
      (error: unknown) =>
        answer(
          error instanceof OutboundError
            ? { id, failure: { reason: error.reason, message: error.message } }
            : { id, fault: error instanceof Error ? error.message : String(error) },
        ),
    );
});
