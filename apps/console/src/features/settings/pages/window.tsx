import { type SettingsOf, settingsDefaults } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { loadSettings } from '../kit/api';
import { SettingsForm } from '../kit/SettingsForm';
import type { PageSpec } from '../kit/spec';
import { ChatWindowPreview } from '../preview/Previews';
import { CONTACT_FIELDS, WEEKDAYS } from './options';

const windowStyle: PageSpec<'windowStyle'> = {
  page: 'windowStyle',
  intro: 'settings.intro.windowStyle',
  fields: [
    { name: 'color', label: 'settings.f.color', kind: 'color' },
    { name: 'title', label: 'settings.f.windowTitle' },
    { name: 'logo', label: 'settings.f.logo', hint: 'settings.hint.address' },
    { name: 'agentAvatar', label: 'settings.f.agentAvatar', hint: 'settings.hint.address' },
    { name: 'intro', label: 'settings.f.windowIntro', kind: 'textarea' },
    {
      name: 'ad',
      label: 'settings.f.ad',
      kind: 'group',
      fields: [
        { name: 'image', label: 'settings.f.image', hint: 'settings.hint.address' },
        { name: 'url', label: 'settings.f.url' },
      ],
    },
    { name: 'width', label: 'settings.f.width', kind: 'number', hint: 'settings.hint.pixels' },
    { name: 'height', label: 'settings.f.height', kind: 'number', hint: 'settings.hint.pixels' },
  ],
  preview: (value) => <ChatWindowPreview style={value} />,
};

/** The window's texts shown in the window's own colours and title, as stored on the style page. */
function WindowSettingPreview({ value }: { value: SettingsOf<'windowSetting'> }) {
  const style = useQuery({ queryKey: ['settings', 'windowStyle'], queryFn: () => loadSettings('windowStyle'), retry: false });
  return <ChatWindowPreview style={style.data ?? settingsDefaults.windowStyle} window={value} />;
}

const contactForm = (label: string, withEnabled: boolean) => ({
  name: label,
  label: `settings.f.${label}`,
  kind: 'group' as const,
  fields: [
    ...(withEnabled ? [{ name: 'enabled', label: 'settings.f.enabled', kind: 'switch' as const }] : []),
    { name: 'fields', label: 'settings.f.contactFields', kind: 'multiple' as const, options: CONTACT_FIELDS },
    {
      name: 'required',
      label: 'settings.f.contactRequired',
      kind: 'multiple' as const,
      options: CONTACT_FIELDS,
      hint: 'settings.hint.requiredShown',
    },
  ],
});

const windowSetting: PageSpec<'windowSetting'> = {
  page: 'windowSetting',
  intro: 'settings.intro.windowSetting',
  fields: [
    { name: 'welcome', label: 'settings.f.welcome', kind: 'textarea' },
    contactForm('preChat', true),
    contactForm('letter', false),
    {
      name: 'workHours',
      label: 'settings.f.workHours',
      kind: 'group',
      fields: [
        { name: 'enabled', label: 'settings.f.enabled', kind: 'switch' },
        { name: 'timezone', label: 'settings.f.timezone', hint: 'settings.hint.timezone' },
        {
          name: 'days',
          label: 'settings.f.workDays',
          kind: 'list',
          inline: true,
          addLabel: 'settings.add.workDay',
          newItem: { day: 1, from: '09:00', to: '18:00' },
          fields: [
            { name: 'day', label: 'settings.f.weekday', kind: 'select', options: WEEKDAYS },
            { name: 'from', label: 'settings.f.from', kind: 'time' },
            { name: 'to', label: 'settings.f.to', kind: 'time' },
          ],
        },
        { name: 'offlineText', label: 'settings.f.offlineText', kind: 'textarea' },
      ],
    },
    { name: 'rating', label: 'settings.f.rating', kind: 'switch' },
    { name: 'autoCloseMinutes', label: 'settings.f.autoCloseMinutes', kind: 'number', hint: 'settings.hint.zeroNever' },
    { name: 'maxLength', label: 'settings.f.maxLength', kind: 'number' },
  ],
  preview: (value) => <WindowSettingPreview value={value} />,
};

export function WindowStylePage() {
  return <SettingsForm spec={windowStyle} />;
}

export function WindowSettingPage() {
  return <SettingsForm spec={windowSetting} />;
}
