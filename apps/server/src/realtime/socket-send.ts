import { frame, type Message, SocketCode } from '@parley/protocol';
import type { WebSocket } from 'ws';
import type { z } from 'zod';
import { isDatabaseUnavailable } from '../db/errors.js';
import { ApiError } from '../lib/errors.js';
import { type Lang, translate } from '../lib/i18n.js';
import { parse } from '../lib/validate.js';
import { send } from './frames.js';

/**
 * The sends (8100) of one socket, answered 8101 once stored or 8102 with the status the HTTP send would
 * have answered. A socket's messages are stored one after another, in the order they arrived, so a
 * visitor's or an agent's lines keep their order as the HTTP client's awaited calls keep it.
 */
export class SocketSends<T> {
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly socket: WebSocket,
    private readonly lang: Lang,
    private readonly schema: z.ZodType<T>,
    private readonly store: (data: T) => Promise<Message>,
    private readonly onError: (error: unknown) => void,
    /** Counts the send against the HTTP call's limits, before its data is read, as the route does. */
    private readonly admit: () => Promise<void> = async () => undefined,
  ) {}

  offer(data: unknown): void {
    const named = (data as { onlyID?: unknown } | null | undefined)?.onlyID;
    const onlyID = typeof named === 'string' ? named.slice(0, 64) : '';
    this.last = this.last.then(async () => {
      try {
        // Validation is part of the turn: a refusal never overtakes an earlier send's answer.
        await this.admit();
        const message = await this.store(parse(this.schema, data));
        send(this.socket, frame(SocketCode.sent, message));
      } catch (error) {
        send(this.socket, frame(SocketCode.sendRefused, { onlyID, ...this.refusal(error) }));
      }
    });
  }

  /** What the HTTP error handler would have answered, worded in the socket's language. */
  private refusal(error: unknown): { status: number; msg: string } {
    if (error instanceof ApiError) return { status: error.status, msg: error.localized(this.lang) };
    if (isDatabaseUnavailable(error)) return { status: 503, msg: translate(this.lang, 'databaseUnavailable') };
    this.onError(error);
    return { status: 500, msg: translate(this.lang, 'serverError') };
  }
}
