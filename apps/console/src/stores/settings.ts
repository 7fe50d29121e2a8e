import { create } from 'zustand';
import { DEFAULT_THEME, type Device, randomTheme, restoreTheme, type Theme } from '../app/theme';
import { browserLanguages, startLanguage } from '../lib/language';
import { type Language, settings } from '../lib/settings';

function storedTheme(): Theme {
  try {
    const raw = localStorage.getItem(settings.themeKey);
    return restoreTheme(raw ? JSON.parse(raw) : null);
  } catch {
    return { ...DEFAULT_THEME };
  }
}

/** The user's stored choice, else the browser's language (see startLanguage). */
function storedLanguage(): Language {
  try {
    return startLanguage(localStorage.getItem(settings.languageKey), browserLanguages());
  } catch {
    return startLanguage(null, browserLanguages());
  }
}

function isMobileWidth(): boolean {
  return typeof window !== 'undefined' && window.innerWidth < settings.mobileWidth;
}

interface SettingsState {
  theme: Theme;
  device: Device;
  collapse: boolean;
  language: Language;
  /** Comprehensive layout: the first-level route whose children the sidebar shows. */
  extraFirst: string;
  drawerOpen: boolean;
  setTheme(patch: Partial<Theme>): void;
  saveTheme(): void;
  resetTheme(): void;
  randomTheme(): void;
  setDevice(device: Device): void;
  toggleCollapse(): void;
  foldSidebar(): void;
  setLanguage(language: Language): void;
  setExtraFirst(path: string): void;
  setDrawerOpen(open: boolean): void;
}

const initialTheme = storedTheme();

export const useSettings = create<SettingsState>((set, get) => ({
  theme: initialTheme,
  device: isMobileWidth() ? 'mobile' : 'desktop',
  collapse: isMobileWidth() ? true : initialTheme.collapse,
  language: storedLanguage(),
  extraFirst: '',
  drawerOpen: false,
  setTheme: (patch) => set((state) => ({ theme: { ...state.theme, ...patch } })),
  saveTheme() {
    localStorage.setItem(settings.themeKey, JSON.stringify(get().theme));
  },
  resetTheme() {
    localStorage.removeItem(settings.themeKey);
    set({ theme: { ...DEFAULT_THEME }, collapse: get().device === 'mobile' ? true : DEFAULT_THEME.collapse });
  },
  randomTheme() {
    const theme = randomTheme(get().theme, get().device);
    localStorage.setItem(settings.themeKey, JSON.stringify(theme));
    set({ theme });
  },
  setDevice(device) {
    if (device === get().device) return;
    set({ device, collapse: device === 'mobile' ? true : get().theme.collapse });
  },
  toggleCollapse: () => set((state) => ({ collapse: !state.collapse })),
  foldSidebar: () => set({ collapse: true }),
  setLanguage(language) {
    localStorage.setItem(settings.languageKey, language);
    set({ language });
  },
  setExtraFirst: (extraFirst) => set({ extraFirst }),
  setDrawerOpen: (drawerOpen) => set({ drawerOpen }),
}));
