import { ABROAD_REGION_CODE, type Region, type VisitorRecord } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;

// The test client is the proxy the server trusts, so each visitor's address is the one it forwards.
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: '127.0.0.1' });
  admin = await server.login();
});
afterAll(() => server.close());

const byCode = (nodes: Region[], code: string) => nodes.find((node) => node.code === code);

describe('GET /api/area/getList', () => {
  it('answers 401 without a token', async () => {
    expect((await server.get('/api/area/getList')).status).toBe(401);
  });

  it('answers any agent the GB/T 2260 tree with macro regions, flags, Taiwan, Hong Kong, Macau and abroad', async () => {
    const response = await server.get<{ list: Region[] }>('/api/area/getList', { token: admin });
    expect(response.status).toBe(200);
    const { list } = response.body.data;
    for (const province of list) expect(province.code).toMatch(/^\d{2}0000$/);

    const guangdong = byCode(list, '440000');
    expect(guangdong).toMatchObject({ name: '广东省', region: 'south' });
    const shenzhen = guangdong && byCode(guangdong.children, '440300');
    expect(shenzhen?.name).toBe('深圳市');
    expect(shenzhen && byCode(shenzhen.children, '440305')?.name).toBe('南山区');
    // A city's parent is its first two digits + 0000, a district's its first four + 00.
    for (const city of guangdong?.children ?? []) {
      expect(city.code.slice(0, 2)).toBe('44');
      for (const district of city.children) expect(district.code.slice(0, 4)).toBe(city.code.slice(0, 4));
    }

    expect(byCode(list, '500000')).toMatchObject({ name: '重庆市', provinceLevelCity: true, region: 'southwest' });
    expect(byCode(list, '650000')).toMatchObject({ name: '新疆维吾尔自治区', autonomousRegion: true, region: 'northwest' });
    expect(byCode(list, '440000')?.autonomousRegion).toBeUndefined();
    expect(byCode(list, '710000')?.name).toBe('台湾省');
    expect(byCode(list, '810000')?.name).toBe('香港特别行政区');
    expect(byCode(list, '820000')?.name).toBe('澳门特别行政区');
    expect(byCode(list, ABROAD_REGION_CODE)).toEqual({ name: '海外', code: ABROAD_REGION_CODE, children: [] });
  });
});

describe('the region of a visitor, looked up from the address at init', () => {
  async function regionOfVisitorFrom(address: string): Promise<string | undefined> {
    const init = await server.post<{ id: string }>(
      '/api/visitor/init',
      { url: 'https://shop.example/', lang: 'en' },
      { headers: { 'x-forwarded-for': address } },
    );
    expect(init.status).toBe(200);
    const detail = await server.get<{ visitor: VisitorRecord }>(`/api/user/detail?YQToken=${init.body.data.id}`, { token: admin });
    return detail.body.data.visitor.region;
  }

  it.each([
    ['120.24.78.68', '广东省深圳市'],
    ['114.114.114.114', '江苏省南京市'],
    ['223.5.5.5', '浙江省杭州市'],
    ['61.135.169.121', '北京市'],
    ['203.198.7.66', '香港特别行政区'],
    ['8.8.8.8', '美国'],
    ['81.2.69.142', '英国'],
    ['192.168.1.20', 'LAN'],
    ['10.1.2.3', 'LAN'],
    ['127.0.0.1', 'localhost'],
  ])('%s is in %s', async (address, region) => {
    expect(await regionOfVisitorFrom(address)).toBe(region);
  });
});
