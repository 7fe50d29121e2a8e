import { useEffect } from 'react';
import { RouterProvider } from 'react-router';
import { changeLanguage, i18n } from '../lib/i18n';
import { useSettings } from '../stores/settings';
import { createAppRouter } from './router';
import { PALETTES } from './theme';

const router = createAppRouter();

/**
 * The root: language and colour-theme variables, then the router. antd's theme wraps the pages that use
 * antd (see AntdFrame), so the login page paints without it.
 */
export function App() {
  const themeName = useSettings((state) => state.theme.themeName);
  const language = useSettings((state) => state.language);
  const palette = PALETTES[themeName];

  useEffect(() => {
    if (i18n.language !== language) void changeLanguage(language);
  }, [language]);

  useEffect(() => {
    const root = document.documentElement;
    root.dataset.theme = themeName;
    root.style.setProperty('--parley-primary', palette.primary);
    root.style.setProperty('--parley-menu-bg', palette.menuBg);
    root.style.setProperty('--parley-menu-item-bg', palette.menuItemBg);
    root.style.setProperty('--parley-header-bg', palette.headerBg);
    root.style.setProperty('--parley-column-bg', palette.columnBg);
    root.dataset.menu = palette.menu;
  }, [themeName, palette]);

  return <RouterProvider router={router} />;
}
