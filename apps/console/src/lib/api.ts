import { type Endpoint, endpointMethod, endpointPath, type InputOf, type ResponseOf } from '@parley/protocol';
import type { RequestOptions } from './http';
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
