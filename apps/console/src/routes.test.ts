import { BUSINESS_ROUTES } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { DEMO_ROUTES } from './features/demo/routes';
import { unbuiltRoutes } from './routes';

describe('the console’s pages', () => {
  it('draws every signed-in screen of the menu: none says "not available yet"', () => {
    expect(unbuiltRoutes(BUSINESS_ROUTES)).toEqual([]);
  });

  it('draws every demo page of the template too', () => {
    expect(unbuiltRoutes(DEMO_ROUTES)).toEqual([]);
  });

  it('names a route no page draws, which then opens the "not available yet" page', () => {
    expect(unbuiltRoutes([{ path: '/later', name: 'NotYetBuilt', meta: { title: 'later' } }])).toEqual(['NotYetBuilt']);
  });
});
