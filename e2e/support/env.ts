/** Where the suites find the server the global setup started, and how to sign in to it. */
export const E2E_PORT = Number(process.env.E2E_PORT || 10710);
export const BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
/** Where the server under test finds WeChat's API: a double the WeChat suite starts (apps/server/test/wechat-double.ts). */
export const WECHAT_DOUBLE_PORT = E2E_PORT + 20000;
export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'e2e-admin-pass-1';
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
