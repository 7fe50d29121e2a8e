// What the benches share to drive a server: their command-line options and Parley's API as a client sees it.
import WebSocket from 'ws';

/** The value after `--name` on the command line (a string), or `fallback`. */
export function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

/** One call of `/api`: GET without a body, POST with one; answers `data`, throws on any other code than 200. */
export async function api(url, path, body, token) {
  const response = await fetch(url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (json.code !== 200) throw new Error(`${path}: ${json.msg}`);
  return json.data;
}

/** A WebSocket, once open. */
export const openSocket = (url) =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
