import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BASE_URL } from './env';

/** A shop that embeds the widget, on another origin than the server's (a port of its own). */
export interface Shop {
  url: string;
  close: () => Promise<void>;
}

export async function startShop(base = BASE_URL, title = 'Acme Shop'): Promise<Shop> {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body><main><h1>${title}</h1><p style="height:2000px">Rockets and more.</p></main><script src="${base}/widget.js" async></script></body></html>`;
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
