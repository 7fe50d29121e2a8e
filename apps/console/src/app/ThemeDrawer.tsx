import { Button, Divider, Drawer, Form, Select, Space, Switch } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useWindowEvent } from '../lib/useWindowEvent';
import { useSettings } from '../stores/settings';
import {
  BACKGROUNDS,
  COLUMN_STYLES,
  drawerAvailability,
  LAYOUTS,
  PALETTES,
  TABS_BAR_STYLES,
  THEME_NAMES,
  THEME_SWITCHES,
  type Theme,
  type ThemeName,
} from './theme';

/** Theme configuration (seed §2-§5): opens on the 'theme' event; 'random-theme' picks a random skin. */
export function ThemeDrawer() {
  const { t } = useTranslation();
  const open = useSettings((state) => state.drawerOpen);
  const setOpen = useSettings((state) => state.setDrawerOpen);
  const theme = useSettings((state) => state.theme);
  const device = useSettings((state) => state.device);
  const setTheme = useSettings((state) => state.setTheme);
  const saveTheme = useSettings((state) => state.saveTheme);
  const resetTheme = useSettings((state) => state.resetTheme);
  const available = drawerAvailability(theme, device);

  useWindowEvent(
    'theme',
    useCallback(() => setOpen(true), [setOpen]),
  );

  const select = <K extends 'layout' | 'themeName' | 'columnStyle' | 'tabsBarStyle' | 'background'>(
    key: K,
    values: readonly Theme[K][],
    disabled: boolean,
  ) => (
    <Form.Item label={t(`theme.${key as string}`)}>
      <Select
        data-testid={`theme-${key}`}
        value={theme[key]}
        disabled={disabled}
        onChange={(value: Theme[K]) => setTheme({ [key]: value } as Partial<Theme>)}
        options={values.map((value) => {
          const text = t(`theme.${key as string}Options.${value as string}`);
          const palette = key === 'themeName' ? PALETTES[value as ThemeName] : undefined;
          return {
            value,
            label: palette ? (
              <span className="theme-swatch">
                <i style={{ background: palette.primary }} />
                <i style={{ background: palette.menuBg }} />
                {text}
              </span>
            ) : (
              text
            ),
          };
        })}
        popupMatchSelectWidth={false}
      />
    </Form.Item>
  );

  const disabledSwitch: Partial<Record<(typeof THEME_SWITCHES)[number], boolean>> = {
    fixedHeader: !available.fixedHeader,
    showTabsIcon: !available.showTabsIcon,
  };

  return (
    <Drawer
      title={t('theme.title')}
      placement="right"
      size={280}
      open={open}
      onClose={() => setOpen(false)}
      rootClassName="theme-drawer"
      footer={
        <Space className="theme-drawer-footer">
          <Button
            type="primary"
            data-testid="theme-save"
            onClick={() => {
              saveTheme();
              setOpen(false);
            }}
          >
            {t('theme.save')}
          </Button>
          <Button
            data-testid="theme-reset"
            onClick={() => {
              resetTheme();
              setOpen(false);
            }}
          >
            {t('theme.reset')}
          </Button>
        </Space>
      }
    >
      <Form layout="horizontal" labelCol={{ span: 9 }} wrapperCol={{ span: 15 }} labelAlign="left" labelWrap colon={false} size="small">
        <Divider plain>{t('theme.sectionLayout')}</Divider>
        {select('layout', LAYOUTS, !available.layout)}
        {select('themeName', THEME_NAMES, false)}
        {select('background', BACKGROUNDS, !available.background)}
        {select('columnStyle', COLUMN_STYLES, !available.columnStyle)}
        {select('tabsBarStyle', TABS_BAR_STYLES, !available.tabsBarStyle)}
        <Divider plain>{t('theme.sectionControls')}</Divider>
        {THEME_SWITCHES.map((key) => (
          <Form.Item key={key} label={t(`theme.${key}`)}>
            <Switch
              data-testid={`theme-${key}`}
              checked={theme[key]}
              disabled={disabledSwitch[key] ?? false}
              onChange={(checked) => setTheme({ [key]: checked })}
            />
          </Form.Item>
        ))}
      </Form>
    </Drawer>
  );
}
