// Builds what is missing or older than its sources: the console, the widget and the server, or only the
// workspaces named (`node scripts/build.mjs @parley/server`). `--force` rebuilds regardless. Every suite
// that runs a built artifact goes through here, so none of them tests a build older than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compressTree } from './compress.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const force = process.argv.includes('--force');
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

/** Newest modification time under the given paths, skipping dependencies and outputs. */
function newest(paths) {
  let latest = 0;
  const visit = (path) => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) {
        if (entry === 'node_modules' || entry === 'dist') continue;
        visit(join(path, entry));
      }
    } else {
      latest = Math.max(latest, stat.mtimeMs);
    }
  };
  for (const path of paths) visit(join(root, path));
  return latest;
}

const targets = [
  {
    name: '@parley/console',
    entry: 'apps/console/index.html',
    output: 'apps/console/dist/index.html',
    compress: 'apps/console/dist',
    sources: [
      'apps/console/src',
      'apps/console/index.html',
      'apps/console/vite.config.ts',
      'apps/console/public',
      'apps/console/package.json',
      'packages/protocol/src',
    ],
  },
  {
    name: '@parley/widget',
    entry: 'apps/widget/vite.config.ts',
    output: 'apps/widget/dist/widget.js',
    compress: 'apps/widget/dist',
    sources: ['apps/widget/src', 'apps/widget/vite.config.ts', 'apps/widget/size.mjs', 'apps/widget/package.json', 'packages/protocol/src'],
  },
  {
    name: '@parley/server',
    entry: 'apps/server/src/main.ts',
    output: 'apps/server/dist/main.js',
    // The package.json names what stays external to the bundle.
    sources: ['apps/server/src', 'apps/server/build.mjs', 'apps/server/package.json', 'packages/protocol/src'],
  },
];

const unknown = only.filter((name) => !targets.some((target) => target.name === name));
if (unknown.length > 0) {
  process.stderr.write(`no such build target: ${unknown.join(', ')} (known: ${targets.map((target) => target.name).join(', ')})\n`);
  process.exit(2);
}

/**
 * Test files running in parallel each ask for a fresh build: the first takes this lock and builds, the
 * others wait and then find the output up to date, instead of writing the same files at once while a
 * server already started from them is reading them. A lock left by a process that died is taken over.
 */
function lock(name) {
  const dir = join(root, '.cache/build', `${name.replace('@parley/', '')}.lock`);
  mkdirSync(dirname(dir), { recursive: true });
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    } catch {}
    // No pid yet: it is being written, unless the holder died in between a while ago.
    let alive =
      Number.isInteger(holder) && holder > 0 ? true : Date.now() - (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 10_000;
    if (Number.isInteger(holder) && holder > 0) {
      try {
        process.kill(holder, 0);
      } catch (error) {
        alive = error.code === 'EPERM';
      }
    }
    if (!alive) rmSync(dir, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`${dir} is held by process ${holder}`);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}

for (const target of targets) {
  if (only.length > 0 && !only.includes(target.name)) continue;
  const workspace = join(root, target.name.replace('@parley/', 'apps/'));
  if (!existsSync(join(workspace, 'package.json'))) continue;
  if (!existsSync(join(root, target.entry))) continue;
  const output = join(root, target.output);
  const upToDate = () => existsSync(output) && statSync(output).mtimeMs >= newest(target.sources);
  if (upToDate() && !force) continue;
  const release = lock(target.name);
  try {
    // Another process may have built it while this one waited for the lock.
    if (upToDate() && !force) continue;
    process.stdout.write(`building ${target.name}\n`);
    const result = spawnSync('npm', ['run', 'build', '--silent', '-w', target.name], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) {
      process.stderr.write(`build of ${target.name} failed\n`);
      process.exitCode = result.status ?? 1;
      break;
    }
    if (target.compress) compressTree(join(root, target.compress));
  } finally {
    release();
  }
}
