/**
 * Where the suites find their server, and how to sign in to it. The global setup starts one server per
 * worker, E2E_PORT (default 10710) plus the worker's parallel index: a worker's tests see only their own.
 */
const BASE_PORT = Number(process.env.E2E_PORT || 10710);
/** The port of the server of the worker with this parallel index. */
export function serverPort(parallelIndex: number): number {
  return BASE_PORT + parallelIndex;
}
/** Where a server finds WeChat's API: a double the WeChat suite starts (apps/server/test/wechat-double.ts). */
export function wechatDoublePort(port: number): number {
  return port + 20000;
}
/** This worker's server (Playwright sets TEST_PARALLEL_INDEX in each worker; the main process has none). */
export const E2E_PORT = serverPort(Number(process.env.TEST_PARALLEL_INDEX || 0));
export const BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
export const WECHAT_DOUBLE_PORT = wechatDoublePort(E2E_PORT);
export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'e2e-admin-pass-1';
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
