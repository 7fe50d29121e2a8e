import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { type MessageKey, pickLang, translate } from './i18n.js';

/** What Node's parser reports, and the bytes it was reading when it gave up (a Buffer, in Node's own errors). */
interface ClientError extends Error {
  code?: string;
  rawPacket?: unknown;
}

/** Enough of the start of a request to find its Accept-Language; a header this long is not one. */
const LANGUAGE_SCAN_BYTES = 16 * 1024;

/**
 * The request's language, read from whatever of its head the parser had: a request refused for its
 * headers never reaches Fastify, so nothing else has parsed them.
 */
function languageOf(error: ClientError) {
  const head = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, LANGUAGE_SCAN_BYTES).toString('latin1') : '';
  return pickLang(/\r\naccept-language:[ \t]*([^\r\n]*)/i.exec(head)?.[1]);
}

function answerOf(error: ClientError): { status: number; key: MessageKey } {
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, key: 'headersTooLarge' };
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, key: 'requestTimeout' };
  return { status: 400, key: 'malformedRequest' };
}

/**
 * Answers a request Node refused before Fastify saw it (headers too large, a broken request line, too
 * slow) in the API's JSON envelope and the request's language, then closes the connection, as Node would.
 */
export function clientErrorHandler(error: ClientError, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, key } = answerOf(error);
    const body = JSON.stringify({ code: status, msg: translate(languageOf(error), key), data: null });
    socket.write(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Cache-Control: no-store',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroy(error);
}
