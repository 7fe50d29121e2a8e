import { theme as antTheme, type ThemeConfig } from 'antd';
import { useMemo } from 'react';
import { useSettings } from '../stores/settings';
import { PALETTES } from './theme';

function shade7(colors: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(colors).flatMap(([hue, color]) => [
      [`${hue}7`, color],
      [`${hue}-7`, color],
    ]),
  );
}

/**
 * antd's default greys and status colours read below 4.5:1 (WCAG AA) on white: secondary text 3.4, the
 * select placeholder 1.8, the error red 3.3, a success tag 3.4. These are the lightest that reach it on
 * white and on the page grey; the palette's primary is chosen the same way (see PALETTES).
 */
const READABLE_TEXT = {
  colorTextSecondary: 'rgba(0, 0, 0, 0.62)',
  colorTextTertiary: 'rgba(0, 0, 0, 0.58)',
  colorTextDescription: 'rgba(0, 0, 0, 0.58)',
  colorTextPlaceholder: 'rgba(0, 0, 0, 0.55)',
  colorError: '#cf1322',
  colorSuccessText: '#237804',
  colorWarningText: '#ad4e00',
  // A tag's text is its hue's seventh shade; antd names each shade twice, and its CSS variable takes the
  // hyphenated one.
  ...shade7({ green: '#237804', cyan: '#006d75', orange: '#ad4e00', gold: '#874d00', volcano: '#ad2102', lime: '#3f6600' }),
};

/** `color` (#rrggbb) mixed with white, `share` of it: the light tints behind selected items. */
function tint(color: string, share: number): string {
  const channels = [1, 3, 5].map((at) => Number.parseInt(color.slice(at, at + 2), 16));
  return `#${channels
    .map((value) =>
      Math.round(255 - (255 - value) * share)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** antd's theme for the chosen colour theme: one place, shared by the page frame and the toasts. */
export function useAntdTheme(): ThemeConfig {
  const themeName = useSettings((state) => state.theme.themeName);
  const palette = PALETTES[themeName];
  return useMemo(
    () => ({
      algorithm: antTheme.defaultAlgorithm,
      token: {
        ...READABLE_TEXT,
        colorPrimary: palette.primary,
        colorInfo: palette.primary,
        colorLink: palette.primary,
        // antd derives these tints from the primary's own scale, which for a deep green or teal comes out
        // grey (#a9baaf behind green text: 2.7:1); a plain mix with white keeps the text on them readable.
        colorPrimaryBg: tint(palette.primary, 0.08),
        colorPrimaryBgHover: tint(palette.primary, 0.12),
        controlItemBgActive: tint(palette.primary, 0.08),
        controlItemBgActiveHover: tint(palette.primary, 0.12),
        borderRadius: 6,
      },
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
