// Several Parley processes behind nginx, as a site that outgrew one process runs them (README,
// "PostgreSQL and Redis"; deploy/nginx.conf): N built servers on one PostgreSQL schema and one Redis, and
// an nginx in front that spreads requests and sockets over them, round robin. For the benches:
//
//   const cluster = await startCluster(2);  // { url, child, pids, stop() }; needs DATABASE_URL and REDIS_URL
//   startCluster(2, env, { nginxWorkers: 2 })  // nginx's worker processes (1 by default): each proxied socket
//                                              // holds two of a worker's files, 20,000 at most here
//
// nginx is Debian's (`apt-get install nginx`), run in the foreground as a child of the bench with a
// configuration of its own in a temporary directory; the proxying part is deploy/nginx.conf's, without TLS.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './server.mjs';

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

function nginxConfig(dir, port, upstreams, workers) {
  return `
user root;
worker_processes ${workers};
worker_rlimit_nofile 20000;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 16000; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream parley {
${upstreams.map((upstream) => `    server ${upstream};`).join('\n')}
    keepalive 32;
    # Below Parley's KEEP_ALIVE_TIMEOUT_MS (5 s): nginx lets an idle connection go before Parley closes it,
    # or a request sent as Parley closes the connection fails (connection reset) and the client gets a 502.
    keepalive_timeout 4s;
  }
  map $http_upgrade $parley_connection {
    default upgrade;
    ''      '';
  }
  server {
    # reuseport: the kernel spreads new connections evenly over the workers, so that none runs out of files first.
    listen 127.0.0.1:${port} reuseport;
    proxy_http_version 1.1;
    proxy_set_header Host $host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header Upgrade $http_upgrade;
    proxy_set_header Connection $parley_connection;
    location /ws/ {
      proxy_pass http://parley;
      proxy_read_timeout 60s;
      proxy_send_timeout 60s;
      proxy_buffering off;
    }
    location / {
      proxy_pass http://parley;
      proxy_read_timeout 60s;
    }
  }
}
`;
}

/** Starts `processes` servers (the first migrates the schema, the others join it) and nginx before them. */
export async function startCluster(processes, env = {}, { nginxWorkers = 1 } = {}) {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL)
    throw new Error('several processes need DATABASE_URL (PostgreSQL) and REDIS_URL (Redis)');
  // A bus of its own on the shared Redis, so that nothing else on it hears this cluster's events.
  const shared = { TRUST_PROXY: '127.0.0.1', REDIS_PREFIX: `parley-bench-${randomBytes(6).toString('hex')}`, ...env };
  const first = await startServer({ env: shared });
  const servers = [first];
  for (let index = 1; index < processes; index += 1) servers.push(await startServer({ env: { ...shared, DATABASE_SCHEMA: first.schema } }));
  const dir = mkdtempSync(join(tmpdir(), 'parley-nginx-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    nginxConfig(
      dir,
      port,
      servers.map((server) => server.url.replace('http://', '')),
      nginxWorkers,
    ),
  );
  const nginx = spawn('nginx', ['-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'inherit', 'inherit'] });
  process.once('exit', () => nginx.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  // Ready once it answers through to a server.
  for (let tries = 0; ; tries += 1) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (tries > 100) throw new Error('nginx did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    child: first.child,
    pids: servers.map((server) => server.child.pid),
    stop: async () => {
      nginx.kill('SIGTERM');
      await new Promise((resolve) => (nginx.exitCode === null ? nginx.once('exit', resolve) : resolve()));
      // The first last: it drops the schema the others use.
      for (const server of servers.slice(1)) await server.stop();
      await first.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
