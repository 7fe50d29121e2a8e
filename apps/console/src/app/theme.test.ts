import { inkOn } from '@parley/protocol/contrast';
import { describe, expect, it } from 'vitest';
import { filterSuggestions, greetingKey, searchTarget } from './header/search';
import { DEFAULT_THEME, drawerAvailability, effectiveLayout, PALETTES, randomTheme, restoreTheme, THEME_NAMES } from './theme';

describe('theme', () => {
  it('has the seed defaults', () => {
    expect(DEFAULT_THEME).toMatchObject({
      layout: 'column',
      themeName: 'blue-black',
      columnStyle: 'card',
      fixedHeader: true,
      showProgressBar: true,
      showTabs: true,
      tabsBarStyle: 'smooth',
      showTabsIcon: true,
      showLanguage: false,
      showRefresh: true,
      showSearch: false,
      showTheme: false,
      showNotice: true,
      showFullScreen: false,
      collapse: false,
    });
  });

  it('random skin differs from the current theme in every randomised value and keeps the rest at defaults', () => {
    const current = { ...DEFAULT_THEME, showSearch: true };
    for (let i = 0; i < 50; i++) {
      const next = randomTheme(current, 'desktop');
      expect(next.themeName).not.toBe(current.themeName);
      expect(next.columnStyle).not.toBe(current.columnStyle);
      expect(next.background).not.toBe(current.background);
      expect(next.tabsBarStyle).not.toBe(current.tabsBarStyle);
      expect(next.showTabsIcon).not.toBe(current.showTabsIcon);
      expect(next.layout).not.toBe(current.layout);
      expect(next.showSearch).toBe(DEFAULT_THEME.showSearch);
    }
    expect(randomTheme(current, 'mobile').layout).toBe('vertical');
  });

  it('restores a stored theme, dropping unknown keys and invalid values', () => {
    expect(restoreTheme(null)).toEqual(DEFAULT_THEME);
    const restored = restoreTheme({ layout: 'float', themeName: 'nope', showSearch: true, fixedHeader: 'yes', extra: 1 });
    expect(restored.layout).toBe('float');
    expect(restored.themeName).toBe(DEFAULT_THEME.themeName);
    expect(restored.showSearch).toBe(true);
    expect(restored.fixedHeader).toBe(true);
    expect(restored).not.toHaveProperty('extra');
  });

  it('follows the drawer availability rules', () => {
    expect(drawerAvailability(DEFAULT_THEME, 'mobile').layout).toBe(false);
    expect(drawerAvailability({ ...DEFAULT_THEME, layout: 'float' }, 'desktop').background).toBe(false);
    expect(drawerAvailability({ ...DEFAULT_THEME, layout: 'horizontal' }, 'desktop').background).toBe(false);
    expect(drawerAvailability({ ...DEFAULT_THEME, showTabs: false }, 'desktop')).toMatchObject({
      tabsBarStyle: false,
      showTabsIcon: false,
    });
    expect(drawerAvailability({ ...DEFAULT_THEME, layout: 'vertical' }, 'desktop').columnStyle).toBe(false);
    expect(drawerAvailability({ ...DEFAULT_THEME, layout: 'common' }, 'desktop').fixedHeader).toBe(false);
    expect(effectiveLayout({ ...DEFAULT_THEME, layout: 'horizontal' }, 'mobile')).toBe('vertical');
  });

  it('has a real palette for every theme name', () => {
    for (const name of THEME_NAMES) expect(PALETTES[name].primary).toMatch(/^#[0-9a-f]{6}$/);
  });
});

describe('header helpers', () => {
  it('greets by hour', () => {
    expect([0, 7, 8, 11, 12, 13, 14, 17, 18, 23].map(greetingKey)).toEqual([
      'morning',
      'morning',
      'forenoon',
      'forenoon',
      'noon',
      'noon',
      'afternoon',
      'afternoon',
      'evening',
      'evening',
    ]);
  });

  it('filters suggestions by lower-case containment and falls back to a web search', () => {
    const list = [
      { value: 'Login log', url: '#/service/record' },
      { value: 'Roles', url: '#/service/role' },
    ];
    expect(filterSuggestions(list, 'LOG')).toEqual([list[0]]);
    expect(searchTarget('Roles', '#/service/role')).toBe('#/service/role');
    expect(searchTarget('a b', undefined)).toContain('q=a%20b');
  });

  it('draws white text on every palette primary at 4.5:1 or more (inkOn leaves it as it is)', () => {
    for (const name of THEME_NAMES) expect(inkOn(PALETTES[name].primary), name).toBe(PALETTES[name].primary);
  });
});
