// A full collection of the calling thread's heap, for the bench's threads to run before a clock starts:
// the setup's garbage (thousands of HTTP calls, a thousand sockets) otherwise made a major collection
// likely within the run, 25-40 ms during which nothing was sent or read, measured as the server's latency.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** Each call collects the heap of the thread it runs in. */
export const collectGarbage = runInNewContext('gc');
