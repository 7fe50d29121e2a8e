import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The service worker is emitted per build with the build's own version, so a new deployment is seen
 * as an update by browsers that hold the previous one.
 */
function serviceWorker(): Plugin {
  return {
    name: 'parley-service-worker',
    apply: 'build',
    // After Vite's own: it drops the JS chunks of CSS-only modules in generateBundle, and a listed file
    // that is not there fails the worker's install (cache.addAll), and with it the push handlers.
    enforce: 'post',
    generateBundle(_options, bundle) {
      const version = Date.now().toString(36);
      const assets = Object.keys(bundle).filter((file) => file.startsWith('static/'));
      const source = `// Generated at build time: caches the hashed, immutable assets of this build only.
const CACHE = 'parley-${version}';
const ASSETS = ${JSON.stringify(assets.map((file) => `/${file}`))};
self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(ASSETS)).then(() => self.skipWaiting()));
});
self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys().then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key)))).then(() => self.clients.claim()),
  );
});
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith('/static/')) return;
  event.respondWith(caches.match(event.request).then((hit) => hit || fetch(event.request)));
});
// Web Push (CONTRACT §14): the server pushes { type, title, body, url } while no console is on screen.
// One notification per conversation: a newer one of the same url replaces it (tag). Pushes are shown one
// after another, in the order they came: shown at once, a burst's earlier message could land last.
let shown = Promise.resolve();
self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  const url = typeof data.url === 'string' && data.url.startsWith('/') ? data.url : '/';
  const show = shown.then(() =>
    self.registration.showNotification(data.title || 'Parley', {
      body: data.body || '',
      tag: data.type === 'test' ? 'parley-test' : url,
      renotify: true,
      icon: '/icons/icon-192.png',
      badge: '/icons/badge-96.png',
      data: { url, type: data.type || '' },
    }),
  );
  shown = show.catch(() => undefined);
  event.waitUntil(show);
});
// A click focuses a console window and takes it to the conversation, or opens one there.
self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL((event.notification.data && event.notification.data.url) || '/', self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (!open) return self.clients.openWindow(url);
      open.postMessage({ type: 'parley:open', url });
      return open.focus();
    }),
  );
});
`;
      this.emitFile({ type: 'asset', fileName: 'sw.js', source });
    },
  };
}

const api = `127.0.0.1:${process.env.PARLEY_SERVER_PORT || '10000'}`;

export default defineConfig({
  plugins: [react(), serviceWorker()],
  base: '/',
  build: {
    outDir: 'dist',
    assetsDir: 'static',
    chunkSizeWarningLimit: 1500,
    sourcemap: false,
    rollupOptions: {
      // The protocol package only declares things; marking it side-effect free keeps its zod schemas
      // (server-side validation) out of the console bundle when nothing here uses them.
      treeshake: { moduleSideEffects: (id: string) => !id.includes('/packages/protocol/src/') },
    },
  },
  server: {
    port: 10001,
    // Everything the console does not serve itself comes from the server (`npm run dev` names its port).
    proxy: {
      '/api': `http://${api}`,
      '/ws': { target: `ws://${api}`, ws: true },
      '/chat': `http://${api}`,
      '/widget.js': `http://${api}`,
      '/sounds': `http://${api}`,
    },
  },
});
