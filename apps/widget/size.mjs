// Prints the gzipped size of the loader and of the chat window (JS + CSS + HTML) and fails the build
// when either is over its budget (DESIGN.md: loader < 6 KB, chat window < 40 KB).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = fileURLToPath(new URL('./dist', import.meta.url));
const gz = (path) => gzipSync(readFileSync(path), { level: 9 }).length;
const files = (dir) =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));

const loader = gz(join(dist, 'widget.js'));
const chat = files(join(dist, 'chat'))
  .filter((file) => /\.(js|css|html)$/.test(file))
  .reduce((sum, file) => sum + gz(file), 0);
const kb = (bytes) => `${(bytes / 1024).toFixed(2)} KB`;
process.stdout.write(`widget sizes (gzip): loader ${kb(loader)} of 6 KB, chat window ${kb(chat)} of 40 KB\n`);
if (loader >= 6 * 1024 || chat >= 40 * 1024) {
  process.stderr.write('widget over its size budget\n');
  process.exit(1);
}
