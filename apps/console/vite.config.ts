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
