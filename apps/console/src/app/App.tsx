import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, theme as antTheme, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { type ReactNode, useEffect, useMemo } from 'react';
import { RouterProvider } from 'react-router';
import { registerFeedback } from '../lib/feedback';
import { i18n } from '../lib/i18n';
import { useSettings } from '../stores/settings';
import { createAppRouter } from './router';
import { PALETTES } from './theme';

const queryClient = new QueryClient({
  defaultOptions: {
    // The HTTP client has already told the user; a failed read is retried only when asked again.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});

const router = createAppRouter();

function FeedbackBridge({ children }: { children: ReactNode }) {
  const { message, notification } = AntApp.useApp();
  useEffect(() => registerFeedback(message, notification), [message, notification]);
  return children;
}

/** The session is over: forget every server answer of the previous user. */
function useSessionReset() {
  useEffect(() => {
    const reset = () => queryClient.clear();
    window.addEventListener('session-reset', reset);
    return () => window.removeEventListener('session-reset', reset);
  }, []);
}

export function App() {
  const themeName = useSettings((state) => state.theme.themeName);
  const language = useSettings((state) => state.language);
  const palette = PALETTES[themeName];
  useSessionReset();

  useEffect(() => {
    if (i18n.language !== language) void i18n.changeLanguage(language);
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

  const themeConfig = useMemo(
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

  return (
    <ConfigProvider theme={themeConfig} locale={language === 'en' ? enUS : zhCN}>
      <AntApp>
        <FeedbackBridge>
          <QueryClientProvider client={queryClient}>
            <RouterProvider router={router} />
          </QueryClientProvider>
        </FeedbackBridge>
      </AntApp>
    </ConfigProvider>
  );
}
