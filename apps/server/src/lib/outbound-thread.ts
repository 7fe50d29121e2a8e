import type { Worker } from 'node:worker_threads';
import { type OutboundClient, OutboundError, type OutboundFailure, type OutboundRequest, type OutboundResponse } from './outbound.js';
import { startThread } from './threads.js';

/** A request as the thread takes it; requests of one turn of the event loop cross together. */
export interface ThreadCall {
  id: number;
  url: string;
  options: OutboundRequest;
}

/** What the thread answers for a call: the response, the guard's refusal or failure, or a fault of its own. */
export type ThreadReply =
  | { id: number; response: OutboundResponse }
  | { id: number; failure: { reason: OutboundFailure; message: string } }
  | { id: number; fault: string };

/** The requests a sender of many outbound calls needs of the guard. */
export type OutboundRequester = Pick<OutboundClient, 'request' | 'close'>;

/**
 * The outbound guard (`OutboundClient`, the same rule and limits) run on a thread of its own. An HTTP
 * exchange costs the thread that makes it a few hundred microseconds of CPU (the client, its socket's
 * writes, the timers); a busy site's webhooks make thousands a second, which on the event loop would
 * hold up the chat's messages. Here the loop only hands the calls over and takes the answers back, a
 * turn's worth at a time. The thread is started at the first call and again after it ended.
 */
export class ThreadedOutbound implements OutboundRequester {
  private thread: Worker | undefined;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (response: OutboundResponse) => void; reject: (error: Error) => void }>();
  private calls: ThreadCall[] = [];

  constructor(private readonly allow: readonly string[]) {}

  request(url: string, options: OutboundRequest): Promise<OutboundResponse> {
    this.seq += 1;
    const id = this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.calls.push({ id, url, options });
      if (this.calls.length === 1) queueMicrotask(() => this.hand());
    });
  }

  /** Ends the thread; calls still under way fail as `network` (their process is closing). */
  close(): void {
    const thread = this.thread;
    this.thread = undefined;
    void thread?.terminate();
    this.failAll('the outbound thread was closed');
  }

  private hand(): void {
    const calls = this.calls;
    this.calls = [];
    if (calls.length === 0) return;
    try {
      this.start().postMessage(calls);
    } catch (error) {
      // A thread that cannot start fails its calls as the network would, never the process.
      const why = `the outbound thread could not start: ${error instanceof Error ? error.message : String(error)}`;
      for (const { id } of calls) this.settle({ id, failure: { reason: 'network', message: why } });
    }
  }

  private start(): Worker {
    if (this.thread) return this.thread;
    const thread = startThread('outbound-worker', { workerData: { allow: [...this.allow] } });
    // The calls it holds keep their promises; nothing else in the process waits for the thread.
    thread.unref();
    thread.on('message', (replies: ThreadReply[]) => {
      for (const reply of replies) this.settle(reply);
    });
    const ended = (why: string) => {
      if (this.thread !== thread) return;
      this.thread = undefined;
      this.failAll(why);
    };
    thread.on('error', (error) => ended(`the outbound thread failed: ${error.message}`));
    thread.on('exit', (code) => ended(`the outbound thread ended (${code})`));
    this.thread = thread;
    return thread;
  }

  private settle(reply: ThreadReply): void {
    const call = this.pending.get(reply.id);
    if (!call) return;
    this.pending.delete(reply.id);
    if ('response' in reply) call.resolve(reply.response);
    else if ('failure' in reply) call.reject(new OutboundError(reply.failure.reason, reply.failure.message));
    else call.reject(new Error(reply.fault));
  }

  private failAll(why: string): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const call of pending) call.reject(new OutboundError('network', why));
  }
}
