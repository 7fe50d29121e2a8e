import { settingsDefaults, toWidgetSettings, type WidgetSettings } from '@parley/protocol';

/** What a server with untouched settings pages sends, with the given parts changed (tests only). */
export function widgetSettings(changes: Partial<WidgetSettings> = {}): WidgetSettings {
  return { ...toWidgetSettings(settingsDefaults, { lang: 'en', online: true }), ...changes };
}
