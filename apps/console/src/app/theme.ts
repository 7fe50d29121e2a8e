/** Theme options of seed §3/§9 and the pure rules around them (defaults, random skin, availability). */

export const LAYOUTS = ['column', 'comprehensive', 'vertical', 'horizontal', 'common', 'float'] as const;
export type Layout = (typeof LAYOUTS)[number];
export const THEME_NAMES = ['blue-black', 'blue-white', 'green-black', 'green-white', 'red-black', 'red-white', 'ocean'] as const;
export type ThemeName = (typeof THEME_NAMES)[number];
export const COLUMN_STYLES = ['vertical', 'horizontal', 'card', 'arrow'] as const;
export type ColumnStyle = (typeof COLUMN_STYLES)[number];
export const TABS_BAR_STYLES = ['card', 'smart', 'smooth'] as const;
export type TabsBarStyle = (typeof TABS_BAR_STYLES)[number];
export const BACKGROUNDS = ['none', 'vab-background'] as const;
export type Background = (typeof BACKGROUNDS)[number];
export type Device = 'desktop' | 'mobile';

export interface Theme {
  background: Background;
  columnStyle: ColumnStyle;
  fixedHeader: boolean;
  layout: Layout;
  showProgressBar: boolean;
  showTabs: boolean;
  tabsBarStyle: TabsBarStyle;
  showTabsIcon: boolean;
  showLanguage: boolean;
  showRefresh: boolean;
  showSearch: boolean;
  showTheme: boolean;
  showNotice: boolean;
  showFullScreen: boolean;
  showThemeSetting: boolean;
  themeName: ThemeName;
  collapse: boolean;
}

export const DEFAULT_THEME: Readonly<Theme> = Object.freeze({
  background: 'none',
  columnStyle: 'card',
  fixedHeader: true,
  layout: 'column',
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
  showThemeSetting: false,
  themeName: 'blue-black',
  collapse: false,
});

/** The on/off options of the theme drawer, in its order. */
export const THEME_SWITCHES = [
  'fixedHeader',
  'showProgressBar',
  'showTabs',
  'showTabsIcon',
  'showLanguage',
  'showRefresh',
  'showSearch',
  'showTheme',
  'showNotice',
  'showFullScreen',
] as const;

/** A stored theme may come from an older build: keep only known keys with valid values. */
export function restoreTheme(stored: unknown): Theme {
  const theme: Theme = { ...DEFAULT_THEME };
  if (typeof stored !== 'object' || stored === null) return theme;
  const source = stored as Record<string, unknown>;
  const pick = <K extends keyof Theme>(key: K, allowed: readonly Theme[K][]) => {
    const value = source[key];
    if ((allowed as readonly unknown[]).includes(value)) theme[key] = value as Theme[K];
  };
  pick('layout', LAYOUTS);
  pick('themeName', THEME_NAMES);
  pick('columnStyle', COLUMN_STYLES);
  pick('tabsBarStyle', TABS_BAR_STYLES);
  pick('background', BACKGROUNDS);
  for (const key of [...THEME_SWITCHES, 'showThemeSetting', 'collapse'] as const) {
    if (typeof source[key] === 'boolean') theme[key] = source[key];
  }
  return theme;
}

function different<T>(values: readonly T[], current: T, random: () => number): T {
  const others = values.filter((value) => value !== current);
  return others[Math.floor(random() * others.length)] ?? current;
}

/**
 * Random skin (seed §4): start from the defaults, then take a value different from the current one for
 * themeName, columnStyle, background, tabsBarStyle and showTabsIcon, and a different layout on desktop;
 * a mobile device stays vertical.
 */
export function randomTheme(current: Theme, device: Device, random: () => number = Math.random): Theme {
  return {
    ...DEFAULT_THEME,
    themeName: different(THEME_NAMES, current.themeName, random),
    columnStyle: different(COLUMN_STYLES, current.columnStyle, random),
    background: different(BACKGROUNDS, current.background, random),
    tabsBarStyle: different(TABS_BAR_STYLES, current.tabsBarStyle, random),
    showTabsIcon: !current.showTabsIcon,
    layout: device === 'mobile' ? 'vertical' : different(LAYOUTS, current.layout, random),
  };
}

/** What the theme drawer lets a user change right now (seed §5). */
export function drawerAvailability(theme: Theme, device: Device) {
  return {
    layout: device !== 'mobile',
    background: theme.layout !== 'float' && theme.layout !== 'horizontal',
    tabsBarStyle: theme.showTabs,
    showTabsIcon: theme.showTabs,
    columnStyle: theme.layout === 'column',
    fixedHeader: theme.layout !== 'common',
  };
}

/** The layout actually drawn: a mobile device is always vertical. */
export function effectiveLayout(theme: Theme, device: Device): Layout {
  return device === 'mobile' ? 'vertical' : theme.layout;
}

export interface Palette {
  /**
   * Each hue a shade deeper than its brand colour (antd's #1677ff is 4.1:1): white on it, and it on white
   * or on its own 12% tint (selected menu items, the active tab), read at 4.5:1 (WCAG AA).
   */
  primary: string;
  /** Dark menus for the "-black" themes and ocean; light for the "-white" ones. */
  menu: 'dark' | 'light';
  menuBg: string;
  menuItemBg: string;
  headerBg: string;
  columnBg: string;
}

export const PALETTES: Record<ThemeName, Palette> = {
  'blue-black': { primary: '#0061ea', menu: 'dark', menuBg: '#001529', menuItemBg: '#000c17', headerBg: '#001529', columnBg: '#000c17' },
  'blue-white': { primary: '#0061ea', menu: 'light', menuBg: '#ffffff', menuItemBg: '#f7f9fc', headerBg: '#ffffff', columnBg: '#f0f5ff' },
  'green-black': { primary: '#0e7a46', menu: 'dark', menuBg: '#0f1f1a', menuItemBg: '#0a1612', headerBg: '#0f1f1a', columnBg: '#0a1612' },
  'green-white': { primary: '#0e7a46', menu: 'light', menuBg: '#ffffff', menuItemBg: '#f6fbf8', headerBg: '#ffffff', columnBg: '#edf8f2' },
  'red-black': { primary: '#cd2025', menu: 'dark', menuBg: '#1f1416', menuItemBg: '#150d0e', headerBg: '#1f1416', columnBg: '#150d0e' },
  'red-white': { primary: '#cd2025', menu: 'light', menuBg: '#ffffff', menuItemBg: '#fdf7f7', headerBg: '#ffffff', columnBg: '#fdeeee' },
  ocean: { primary: '#0b7680', menu: 'dark', menuBg: '#0b2e4f', menuItemBg: '#082440', headerBg: '#0b2e4f', columnBg: '#082440' },
};
