import { theme as antTheme, ConfigProvider, message, notification } from 'antd';
import type { Locale } from 'antd/es/locale';
import { useEffect, useMemo, useState } from 'react';
import { RouterProvider } from 'react-router';
import { registerFeedback } from '../lib/feedback';
import { changeLanguage, i18n } from '../lib/i18n';
import { useSettings } from '../stores/settings';
import { createAppRouter } from './router';
import { PALETTES } from './theme';

const router = createAppRouter();

/** Themed toasts and notices for code outside React (the HTTP client, the service worker). */
function FeedbackHost() {
  const [messageApi, messageHolder] = message.useMessage();
  const [notificationApi, notificationHolder] = notification.useNotification();
  useEffect(() => registerFeedback(messageApi, notificationApi), [messageApi, notificationApi]);
  return (
    <>
      {messageHolder}
      {notificationHolder}
    </>
  );
}

/** antd's own texts (pagination, pickers) load with the language instead of with the login page. */
function useAntdLocale(language: string): Locale | undefined {
  const [locale, setLocale] = useState<Locale | undefined>(undefined);
  useEffect(() => {
    let live = true;
    const load = language === 'en' ? import('antd/locale/en_US') : import('antd/locale/zh_CN');
    void load.then((module) => {
      if (live) setLocale(module.default);
    });
    return () => {
      live = false;
    };
  }, [language]);
  return locale;
}

export function App() {
  const themeName = useSettings((state) => state.theme.themeName);
  const language = useSettings((state) => state.language);
  const palette = PALETTES[themeName];
  const locale = useAntdLocale(language);

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
    <ConfigProvider theme={themeConfig} locale={locale}>
      <FeedbackHost />
      <RouterProvider router={router} />
    </ConfigProvider>
  );
}
