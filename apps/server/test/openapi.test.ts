import { endpointMethod, endpointPath } from '@parley/protocol';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

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
