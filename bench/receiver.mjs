// A webhook receiver for the benches, in a process of its own so that its work is not the measuring
// process's: answers every POST with 204 and counts each `Parley-Delivery`, and any that comes twice.
//
//   const receiver = await startReceiver();  // { url, count(), stop() }
import { fork, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Starts the receiver's process; `count()` answers `{ received, duplicates, lastAt }` (lastAt: epoch ms).
 * `BENCH_RECEIVER=nginx` has Debian's nginx answer instead (one worker, at `BENCH_RECEIVER_NICE` too), its
 * access log of `Parley-Delivery` headers counted at the end: a receiver on another machine costs these
 * cores nothing, and nginx costs them a fraction of what a Node server does, so the figure is more the
 * server's own.
 */
export async function startReceiver() {
  if (process.env.BENCH_RECEIVER === 'nginx') return startNginxReceiver();
  const child = fork(fileURLToPath(import.meta.url));
  const { url } = await new Promise((resolve) => child.once('message', resolve));
  const count = () =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send('count');
    });
  return { url, count, stop: () => child.send('stop') };
}

/** A free port on loopback, for nginx to listen on. */
function freePort() {
  return new Promise((resolve) => {
    const probe = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function startNginxReceiver() {
  const dir = mkdtempSync(join(tmpdir(), 'parley-receiver-'));
  const port = await freePort();
  const log = join(dir, 'deliveries.log');
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off; worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 4096; }
http {
  access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir};
  log_format delivery '$http_parley_delivery';
  server {
    listen 127.0.0.1:${port}; keepalive_requests 1000000;
    location / { access_log ${log} delivery buffer=64k flush=100ms; return 204; }
  }
}
`,
  );
  const nice = process.env.BENCH_RECEIVER_NICE;
  const nginx = ['/usr/sbin/nginx', '-c', join(dir, 'nginx.conf'), '-p', dir];
  const lowered = nice === 'idle' ? ['chrt', '--idle', '0'] : nice ? ['nice', '-n', nice] : [];
  const [command, ...args] = [...lowered, ...nginx];
  const child = spawn(command, args, { stdio: 'inherit' });
  const url = `http://127.0.0.1:${port}/hook`;
  for (let tries = 0; ; tries++) {
    try {
      await fetch(url, { method: 'POST', body: '' });
      break;
    } catch (error) {
      if (tries > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const count = async () => {
    // The access log is flushed every 100 ms: one more flush after the last request.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '' && line !== '-');
    return { received: ids.length, duplicates: ids.length - new Set(ids).size, lastAt: statSync(log).mtimeMs };
  };
  const stop = () => {
    child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    child.kill('SIGQUIT');
  };
  process.once('exit', () => child.kill('SIGKILL'));
  return { url, count, stop };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // BENCH_RECEIVER_NICE: the receiver stands for a system on another machine; at a low priority its work
  // takes little from the server's on these shared cores.
  // `idle` puts every thread of it in SCHED_IDLE: it then runs only on a core nothing else wants.
  const nice = process.env.BENCH_RECEIVER_NICE;
  if (nice === 'idle') spawnSync('chrt', ['--all-tasks', '--idle', '--pid', '0', String(process.pid)], { stdio: 'inherit' });
  else if (nice) setPriority(Number(nice));
  let received = 0;
  let duplicates = 0;
  let lastAt = 0;
  const seen = new Set();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['parley-delivery'];
      if (seen.has(id)) duplicates += 1;
      seen.add(id);
      received += 1;
      lastAt = Date.now();
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ url: `http://127.0.0.1:${server.address().port}/hook` }));
  // The bench that started it ended (a crash too): so does it.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message) => {
    if (message === 'count') process.send?.({ received, duplicates, lastAt });
    if (message === 'stop') server.close(() => process.exit(0));
  });
}
