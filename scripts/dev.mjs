// `npm run dev`: the server, the console and the widget at once, each rebuilt as its sources change.
//   server   esbuild watches apps/server/src and the protocol; each good rebuild restarts the process
//   console  Vite's dev server with hot reload, proxying the API, sockets and chat window to the server
//   widget   `vite build --watch` of the chat window and of the loader (into .cache/dev), served by the server
// PORT (default 10000) is the server's port, CONSOLE_PORT (default 10001) the console's. Ctrl-C stops all.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { context } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const serverPort = process.env.PORT || '10000';
const consolePort = process.env.CONSOLE_PORT || '10001';
const vite = join(root, 'node_modules/vite/bin/vite.js');
const widgetDir = join(root, '.cache/dev/widget');

const colour = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code, text) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
const labels = { dev: 37, server: 36, console: 35, widget: 33, loader: 33 };
const width = Math.max(...Object.keys(labels).map((name) => name.length));

/** Writes each complete line of a part's output under that part's coloured name. */
function printer(name) {
  const prefix = `${paint(labels[name], name.padEnd(width))} │ `;
  let rest = '';
  const write = (chunk) => {
    const lines = (rest + chunk.toString()).split(/\r?\n/);
    rest = lines.pop() ?? '';
    for (const line of lines) process.stdout.write(`${prefix}${line}\n`);
  };
  write.flush = () => {
    if (rest) process.stdout.write(`${prefix}${rest}\n`);
    rest = '';
  };
  return write;
}
const say = printer('dev');

const children = new Set();
let stopping = false;

/** Runs a part as a child process whose output goes through its printer. */
function run(name, args, options = {}) {
  const out = printer(name);
  const child = spawn(process.execPath, args, { cwd: root, ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', out);
  child.stderr.on('data', out);
  children.add(child);
  child.once('exit', (code, signal) => {
    out.flush();
    children.delete(child);
    child.exited = true;
    if (!stopping && name !== 'server') {
      say(`${name} exited (${signal ?? code}); stopping everything\n`);
      void stop(1);
    }
  });
  return child;
}

/** SIGTERM, and SIGKILL if it has not exited after a few seconds. */
function terminate(child) {
  child.terminated = true;
  if (child.exited) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// The server: the same esbuild options as its real build, in watch mode. A rebuild with errors keeps
// the running process; a good one replaces it (after the old one has let go of the data directory).
const { options } = await import(pathToFileURL(join(root, 'apps/server/build.mjs')).href);
let server;
let restarting = Promise.resolve();
const restart = () => {
  restarting = restarting.then(async () => {
    if (stopping) return;
    if (server) {
      say('server sources changed: restarting the server\n');
      await terminate(server);
    }
    const child = run('server', ['--enable-source-maps', 'apps/server/dist/main.js'], {
      env: { ...process.env, PORT: serverPort, WIDGET_DIR: widgetDir },
    });
    child.once('exit', (code, signal) => {
      if (!stopping && !child.terminated) say(`the server exited (${signal ?? code}); it restarts on the next change\n`);
    });
    server = child;
  });
};
const builder = await context({
  ...options,
  absWorkingDir: join(root, 'apps/server'),
  logLevel: 'silent',
  plugins: [
    {
      name: 'parley-dev-restart',
      setup(build) {
        build.onEnd((result) => {
          if (result.errors.length > 0) {
            const out = printer('server');
            const where = ({ location }) => (location ? `apps/server/${location.file}:${location.line}:${location.column + 1}: ` : '');
            out(
              `build failed, the previous server keeps running:\n${result.errors.map((error) => `  ${where(error)}${error.text}`).join('\n')}\n`,
            );
            return;
          }
          restart();
        });
      },
    },
  ],
});
await builder.watch();

run('console', [vite, '--port', consolePort, '--strictPort', '--clearScreen', 'false'], {
  cwd: join(root, 'apps/console'),
  env: { ...process.env, PARLEY_SERVER_PORT: serverPort },
});
// Into a folder of its own rather than apps/widget/dist: these uncompressed watch builds must not pass
// for the real ones, whose age `npm start` and the test suites go by.
const watch = ['build', '--watch', '--clearScreen', 'false'];
run('widget', [vite, ...watch, '--outDir', join(widgetDir, 'chat')], { cwd: join(root, 'apps/widget') });
run('loader', [vite, ...watch, '--mode', 'loader', '--outDir', widgetDir], { cwd: join(root, 'apps/widget') });
say(`console on http://127.0.0.1:${consolePort}, server on http://127.0.0.1:${serverPort}; Ctrl-C stops all\n`);

async function stop(code) {
  if (stopping) return;
  stopping = true;
  await builder.dispose();
  await restarting;
  await Promise.all([...children].map(terminate));
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
