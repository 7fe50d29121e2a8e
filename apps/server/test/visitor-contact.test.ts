import type { VisitorRecord } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

async function newVisitor() {
  const init = await server.post<{ YQToken: string; id: string }>('/api/visitor/init', { url: 'https://shop.example/' });
  return init.body.data;
}

const recordOf = async (id: string) =>
  (await server.get<{ visitor: VisitorRecord }>(`/api/user/detail?YQToken=${id}`, { token: admin })).body.data.visitor;

describe('POST /api/visitor/contact', () => {
  it('answers 401 for a credential the server never handed out', async () => {
    const response = await server.post('/api/visitor/contact', { YQToken: 'x'.repeat(43), name: 'Nobody' });
    expect(response.status).toBe(401);
  });

  it('keeps the pre-chat answers with the visitor; a field left out keeps its value', async () => {
    const visitor = await newVisitor();
    expect((await server.post('/api/visitor/contact', { YQToken: visitor.YQToken, name: 'Li Lei', email: 'li@example.com' })).status).toBe(
      200,
    );
    expect(await recordOf(visitor.id)).toMatchObject({ name: 'Li Lei', nickname: 'Li Lei', email: 'li@example.com', phone: '' });
    expect((await server.post('/api/visitor/contact', { YQToken: visitor.YQToken, phone: '+86 138 0000 0000' })).status).toBe(200);
    expect(await recordOf(visitor.id)).toMatchObject({ name: 'Li Lei', email: 'li@example.com', phone: '+86 138 0000 0000' });
  });

  it('answers 400 naming the field for a malformed value, and stores nothing', async () => {
    const visitor = await newVisitor();
    const response = await server.post('/api/visitor/contact', { YQToken: visitor.YQToken, name: 'Ann', email: 'not-an-address' });
    expect(response.status).toBe(400);
    expect(response.body.msg).toContain('email');
    expect(await recordOf(visitor.id)).toMatchObject({ name: '', email: '' });
  });
});
