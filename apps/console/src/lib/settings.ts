import { LOGIN_PASSWORD_MIN_LENGTH, MIN_PASSWORD_LENGTH } from '@parley/protocol';

/** Fixed settings of the console (seed §2, §9). Theme values live in the theme store. */
export const settings = {
  titleSeparator: ' - ',
  titleReverse: false,
  /** Without login interception every visitor is treated as an administrator (development only). */
  loginInterception: true,
  /** 'intelligence': routes are built in the console and filtered by role; 'all': fetched from the server. */
  authentication: 'intelligence' as 'intelligence' | 'all',
  rolesControl: true,
  tokenKey: 'parley-token',
  themeKey: 'parley-theme',
  languageKey: 'parley-language',
  requestTimeout: 90_000,
  messageDuration: 3000,
  mobileWidth: 992,
  tabsMax: 20,
  keepAliveMax: 20,
  searchDelay: 500,
  menuScrollAbove: 18,
  /** Keep the first submenu open when the menu first draws. */
  openFirstMenu: false,
  errorLogInProduction: true,
  randomThemeLoadingMs: 1000,
  progress: { minimum: 0.08, speed: 200, trickleSpeed: 800 },
  successCodes: [200, 0, '200', '0'] as ReadonlyArray<number | string>,
  defaultLanguage: 'zh' as const,
  /** Loading overlay for calls whose URL contains this fragment. */
  loadingFragment: 'doEdit',
  pageSize: 20,
  /** The template's sample pages, for trying out the shell; off unless built with VITE_PARLEY_DEMO=1. */
  demo: import.meta.env.VITE_PARLEY_DEMO === '1',
  /** Seed §9: the shortest password the login form accepts. */
  minPasswordLength: LOGIN_PASSWORD_MIN_LENGTH,
  /** The shortest new password (register, agents); the server also refuses common ones. */
  minNewPasswordLength: MIN_PASSWORD_LENGTH,
} as const;

/** Routes reachable without a session. */
export const WHITELIST = ['/login', '/register', '/authLogin', '/callback', '/403', '/404'] as const;

export type Language = 'zh' | 'en';
export const LANGUAGES: readonly Language[] = ['zh', 'en'];
