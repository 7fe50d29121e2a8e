import { endpointMethod, endpointPath } from '@parley/protocol';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { checkResponse } from './response-contract.js';

let server: TestServer;
type Operation = {
  parameters?: { name: string; in: string; required: boolean }[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> };
  security: unknown[];
  'x-parley-access': string;
};
let document: { openapi: string; paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };

beforeAll(async () => {
  server = await startTestServer();
  const response = await fetch(`${server.url}/api/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  document = (await response.json()) as typeof document;
});
afterAll(() => server.close());

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every /api route the server mounts, and no other', () => {
    const described = new Set(
      Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      ),
    );
    for (const mounted of server.app.apiRoutes.mounted) expect(described, mounted).toContain(mounted);
    expect(described.size).toBe(server.app.apiRoutes.mounted.size);
  });

  it('carries each route’s parameters and body from the schemas the server validates with, and who may call it', () => {
    const list = document.paths['/api/service/getList']?.get;
    expect(list?.parameters?.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(['pageNo', 'pageSize']));
    expect(list?.['x-parley-access']).toBe('setPermissions:service');
    expect(list?.security).toEqual([{ bearer: [] }]);

    const send = document.paths['/api/visitor/message']?.post;
    const body = send?.requestBody?.content['application/json']?.schema;
    expect(Object.keys(body?.properties ?? {})).toEqual(expect.arrayContaining(['YQToken', 'msg', 'onlyID']));
    expect(body?.required).toEqual(expect.arrayContaining(['YQToken', 'msg', 'onlyID']));
    expect(send?.security).toEqual([]);

    expect(document.components.securitySchemes).toMatchObject({ bearer: { type: 'http', scheme: 'bearer' } });
  });

  it('describes what each route answers: the envelope’s data, named types shared as components', async () => {
    type Schema = { $ref?: string; properties?: Record<string, Schema>; required?: string[]; items?: Schema };
    type Answers = { responses?: Record<string, { content?: Record<string, { schema: Schema }> }> };
    const jsonOf = (path: string, method: string) =>
      (document.paths[path]?.[method] as Answers | undefined)?.responses?.['200']?.content?.['application/json'];
    const dataOf = (path: string, method: string) => jsonOf(path, method)?.schema.properties?.data;
    const schemas = document.components.schemas as Record<string, Schema>;
    const resolve = (schema: Schema | undefined) => (schema?.$ref ? schemas[schema.$ref.replace('#/components/schemas/', '')] : schema);

    const roles = resolve(dataOf('/api/role/getList', 'get'));
    expect(roles?.required).toEqual(['list', 'total']);
    expect(resolve(roles?.properties?.list?.items)?.properties).toHaveProperty('name');
    const messages = resolve(dataOf('/api/visitor/messages', 'get'));
    const message = resolve(messages?.properties?.list?.items);
    expect(message?.required).toEqual(expect.arrayContaining(['id', 'seq', 'msg', 'role', 'time']));
    expect(message?.properties?.role).toEqual({ $ref: '#/components/schemas/MessageRole' });

    // Every reference resolves, and every JSON answer has a schema for its data (null for those that answer none).
    const text = JSON.stringify(document);
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) expect(schemas, name).toHaveProperty(name as string);
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations)) {
        const json = jsonOf(path, method);
        if (json) expect(dataOf(path, method), `${method} ${path}`).toBeDefined();
      }
    }
  });

  it('is what the server answers: a field the document does not describe fails the test that receives it', async () => {
    const token = await server.login();
    const roles = await server.get<{ list: unknown[]; total: number }>('/api/role/getList?pageNo=1&pageSize=10', { token });
    expect(roles.body.data.total).toBeGreaterThan(0);
    // The harness checks every answer; the same check on answers bent out of shape:
    expect(() => checkResponse('GET', '/api/role/getList', { ...roles.body.data, secret: 'x' })).toThrow(/secret|additional/);
    expect(() => checkResponse('GET', '/api/role/getList', { list: roles.body.data.list })).toThrow(/total/);
    expect(() => checkResponse('GET', '/api/role/getList?pageNo=1', { list: [{ id: 'one' }], total: 1 })).toThrow(/list\/0/);
  });

  it('follows the endpoint table for each declared route', () => {
    for (const key of server.app.apiRoutes.declared.keys()) {
      expect(document.paths[endpointPath(key)]?.[endpointMethod(key).toLowerCase()], key).toBeDefined();
    }
  });
});

describe('GET /api/docs', () => {
  it('serves the viewer from Parley itself, under the console’s CSP, with nothing from another origin', async () => {
    const page = await fetch(`${server.url}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const source of sources) {
      expect(source.startsWith('/')).toBe(true);
      const asset = await fetch(server.url + source);
      expect(asset.status, source).toBe(200);
    }
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
    expect((await fetch(`${server.url}/docs-assets/index.html`)).status).toBe(404);
  });
});
