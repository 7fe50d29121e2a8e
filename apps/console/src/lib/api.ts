import { type Endpoint, endpointMethod, endpointPath, type endpoints, type InputOf, type ResponseOf } from '@parley/protocol';
import type { Download, RequestOptions } from './http';
import { http } from './request';

export type CallOptions = Omit<RequestOptions, 'params' | 'body'>;

/** The input may be left out where the endpoint takes none or every field is optional. */
type Args<K extends Endpoint> = [InputOf<K>] extends [undefined]
  ? [input?: undefined, options?: CallOptions]
  : Partial<InputOf<K>> extends InputOf<K>
    ? [input?: InputOf<K>, options?: CallOptions]
    : [input: InputOf<K>, options?: CallOptions];

type Params = RequestOptions['params'];

/**
 * Calls one endpoint of the protocol's table: a GET sends its input as the query, a POST as the body,
 * and the answer has the row's response type. The only way the console reaches `/api`.
 */
export function call<K extends Endpoint>(key: K, ...args: Args<K>): Promise<ResponseOf<K>> {
  const [input, options = {}] = args;
  const path = endpointPath(key);
  if (endpointMethod(key) === 'GET') return http.get<ResponseOf<K>>(path, { ...options, params: input as Params });
  return http.post<ResponseOf<K>>(path, input, options);
}

/**
 * Sends one file, as the multipart field `file`, to an endpoint that takes an upload (a CSV import):
 * the session's token, its refresh and the error policy are those of every other call.
 */
export function upload<K extends Endpoint>(key: K, file: File, options: CallOptions = {}): Promise<ResponseOf<K>> {
  const form = new FormData();
  form.append('file', file, file.name);
  return http.post<ResponseOf<K>>(endpointPath(key), form, options);
}

type RawGet = { [K in Endpoint]: K extends `GET ${string}` ? (EndpointRaw<K> extends true ? K : never) : never }[Endpoint];
type EndpointRaw<K extends Endpoint> = (typeof endpoints)[K] extends { raw: true } ? true : false;

/** Fetches a raw endpoint's file (a CSV export) with the session's token; `saveFile` then hands it to the user. */
export function download<K extends RawGet>(key: K, input: InputOf<K>, options: CallOptions = {}): Promise<Download> {
  return http.download(endpointPath(key), { ...options, params: input as Params });
}

type CsvGet = {
  [K in Endpoint]: K extends `GET ${string}` ? (InputOf<K> extends { format?: infer F } ? ('csv' extends F ? K : never) : never) : never;
}[Endpoint];

/** Fetches the CSV form of an endpoint that answers the envelope unless asked for `format=csv` (the statistics). */
export function downloadCsv<K extends CsvGet>(key: K, input: Omit<InputOf<K>, 'format'>, options: CallOptions = {}): Promise<Download> {
  return http.download(endpointPath(key), { ...options, params: { ...input, format: 'csv' } as Params });
}

/** Saves a downloaded file under its name, as the browser saves any download. */
export function saveFile({ blob, fileName }: Download): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the file to the browser; the object URL is not needed after this turn.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
