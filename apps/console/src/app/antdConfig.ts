import { theme as antTheme, type ThemeConfig } from 'antd';
import { useMemo } from 'react';
import { useSettings } from '../stores/settings';
import { PALETTES } from './theme';

/** antd's theme for the chosen colour theme: one place, shared by the page frame and the toasts. */
export function useAntdTheme(): ThemeConfig {
  const themeName = useSettings((state) => state.theme.themeName);
  const palette = PALETTES[themeName];
  return useMemo(
    () => ({
      algorithm: antTheme.defaultAlgorithm,
      token: { colorPrimary: palette.primary, borderRadius: 6 },
      components: {
        Menu: {
          darkItemBg: palette.menuBg,
          darkSubMenuItemBg: palette.menuItemBg,
          darkPopupBg: palette.menuBg,
          darkItemSelectedBg: palette.primary,
        },
        Layout: { siderBg: palette.menuBg, headerBg: '#ffffff' },
      },
    }),
    [palette],
  );
}
