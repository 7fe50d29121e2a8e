import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin, type UserConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The protocol package builds its zod schemas at module level, which a bundler must keep unless told
 * the modules are pure. The widget uses its types and constants only, so it declares them side-effect
 * free and zod stays out of both bundles.
 */
function pureProtocol(): Plugin {
  return {
    name: 'parley-pure-protocol',
    transform(code, id) {
      if (id.includes('/packages/protocol/src/')) return { code, map: null, moduleSideEffects: false };
      return null;
    },
  };
}

/**
 * Two outputs from one config, chosen by mode: the chat window (a page under /chat/, the default
 * mode) and the loader (`--mode loader`), a single classic script that any site embeds. The loader
 * is built last and into the same `dist`, so it must not empty it.
 */
const chat: UserConfig = {
  root: here('./src/chat'),
  base: '/chat/',
  plugins: [pureProtocol()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('./dist/chat'),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    modulePreload: false,
  },
};

const loader: UserConfig = {
  // public/ holds widget.d.ts, the typed API sites may use; served beside the loader as /widget.d.ts.
  publicDir: here('./public'),
  plugins: [pureProtocol()],
  build: {
    outDir: here('./dist'),
    emptyOutDir: false,
    sourcemap: false,
    lib: { entry: here('./src/loader/index.ts'), formats: ['iife'], name: 'ParleyWidget', fileName: () => 'widget.js' },
  },
};

export default defineConfig(({ mode }) => (mode === 'loader' ? loader : chat));
