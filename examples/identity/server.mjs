// A members' site in one file: a sign-in form, and a page that tells Parley who is signed in. The hash is
// computed here, on the site's server: the identity secret never reaches a browser. Node 20, no dependencies.
//
//   PARLEY_URL=http://127.0.0.1:10000 IDENTITY_SECRET=… PORT=8788 node server.mjs
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';

const PARLEY_URL = (process.env.PARLEY_URL || 'http://127.0.0.1:10000').replace(/\/$/, '');
const SECRET = process.env.IDENTITY_SECRET || '';
const PORT = Number(process.env.PORT || 8788);
if (!SECRET) {
  console.error('Set IDENTITY_SECRET to the identity secret shown on Parley’s Integration page.');
  process.exit(1);
}

/** CONTRACT §13: hex HMAC-SHA256(identitySecret, id). */
const identityHash = (id) => createHmac('sha256', SECRET).update(id, 'utf8').digest('hex');

const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The signed-in user lives in a cookie (a demo: a real site uses its own session). */
function userOf(req) {
  const match = /(?:^|;\s*)demo_user=([^;]+)/.exec(req.headers.cookie || '');
  return match ? decodeURIComponent(match[1]) : null;
}

function page(user) {
  // The stub queues Parley(…) calls until widget.js has loaded; JSON.stringify keeps values inside the script.
  const identify = user
    ? `Parley('identify', ${JSON.stringify({ id: user, hash: identityHash(user), name: user, attributes: { plan: 'demo' } }).replace(/</g, '\\u003c')});`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Identity example</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}</style>
<script>window.Parley=window.Parley||function(){(Parley.q=Parley.q||[]).push(arguments)}</script>
<script>
${identify}
Parley('on', 'unread', function (count) { document.getElementById('unread').textContent = count ? '(' + count + ' new)' : ''; });
</script></head><body>
<h1>Members' area</h1>
${
  user
    ? `<p>Signed in as <strong>${escapeHtml(user)}</strong>. Open this page in another browser as the same user: the chat follows you.</p>
<form method="post" action="/logout"><button>Sign out</button></form>`
    : `<form method="post" action="/login"><label>User id <input name="user" required maxlength="255"></label> <button>Sign in</button></form>`
}
<p><button type="button" onclick="Parley('open')">Help</button> <span id="unread"></span></p>
${user ? '' : `<script>/* Signed out: this browser forgets the member's chat. */ if (location.search.includes('out=1')) Parley('reset');</script>`}
<script src="${PARLEY_URL}/widget.js" async></script>
</body></html>`;
}

createServer((req, res) => {
  if (req.method === 'POST' && (req.url === '/login' || req.url === '/logout')) {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const user = new URLSearchParams(body).get('user')?.trim().slice(0, 255);
      const cookie =
        req.url === '/login' && user
          ? `demo_user=${encodeURIComponent(user)}; Path=/; HttpOnly; SameSite=Lax`
          : 'demo_user=; Path=/; Max-Age=0';
      res.writeHead(303, { location: req.url === '/logout' ? '/?out=1' : '/', 'set-cookie': cookie }).end();
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(userOf(req)));
}).listen(PORT, () => console.log(`identity example on http://127.0.0.1:${PORT}/ (Parley at ${PARLEY_URL})`));
