import { SettingsForm } from '../kit/SettingsForm';
import type { FormValues, PageSpec } from '../kit/spec';
import { FloatNavigationPreview, InvitationPreview, LauncherPreview } from '../preview/Previews';
import { SIDES, WEEK } from './options';

const takeIcon: PageSpec<'takeIcon'> = {
  page: 'takeIcon',
  intro: 'settings.intro.takeIcon',
  devices: true,
  fields: [
    { name: 'show', label: 'settings.f.show', kind: 'switch' },
    {
      name: 'style',
      label: 'settings.f.launcherStyle',
      kind: 'select',
      options: ['bubble', 'bar', 'image'].map((value) => ({ value, label: `settings.launcherStyle.${value}` })),
    },
    { name: 'position', label: 'settings.f.position', kind: 'select', options: SIDES },
    { name: 'bottom', label: 'settings.f.bottom', kind: 'number', hint: 'settings.hint.pixels' },
    { name: 'side', label: 'settings.f.sideOffset', kind: 'number', hint: 'settings.hint.pixels' },
    { name: 'color', label: 'settings.f.color', kind: 'color' },
    { name: 'text', label: 'settings.f.launcherText', hint: 'settings.hint.launcherText' },
    { name: 'image', label: 'settings.f.image', hint: 'settings.hint.address' },
    { name: 'delaySeconds', label: 'settings.f.delaySeconds', kind: 'number' },
  ],
  preview: (value, device) => <LauncherPreview launcher={value[device]} device={device} />,
};

const NAV_TYPES = ['chat', 'phone', 'qq', 'wechat', 'link', 'top'].map((value) => ({ value, label: `settings.navType.${value}` }));

const floatNavigation: PageSpec<'floatNavigation'> = {
  page: 'floatNavigation',
  intro: 'settings.intro.floatNavigation',
  fields: [
    { name: 'enabled', label: 'settings.f.enabled', kind: 'switch' },
    { name: 'side', label: 'settings.f.position', kind: 'select', options: SIDES },
    { name: 'top', label: 'settings.f.top', kind: 'number', hint: 'settings.hint.percent' },
    { name: 'color', label: 'settings.f.color', kind: 'color' },
    {
      name: 'items',
      label: 'settings.f.navItems',
      kind: 'list',
      addLabel: 'settings.add.navItem',
      newItem: { type: 'chat', title: '', value: '' },
      fields: [
        { name: 'type', label: 'settings.f.navType', kind: 'select', options: NAV_TYPES },
        { name: 'title', label: 'settings.f.title' },
        { name: 'value', label: 'settings.f.navValue', hint: 'settings.hint.navValue' },
      ],
    },
  ],
  preview: (value) => <FloatNavigationPreview value={value} />,
};

/**
 * An empty choice of weekdays, and a cleared span of hours, are held in the form but mean "every day" and
 * "all day", which the page says by leaving them out.
 */
function withoutEmptyDays(values: FormValues): FormValues {
  const box = (device: unknown) => {
    const held = { ...(device as FormValues) };
    if (Array.isArray(held.days) && held.days.length === 0) delete held.days;
    if (!held.hours) delete held.hours;
    return held;
  };
  return { ...values, pc: box(values.pc), mobile: box(values.mobile) };
}

const invitationBox: PageSpec<'invitationBox'> = {
  page: 'invitationBox',
  intro: 'settings.intro.invitationBox',
  devices: true,
  fields: [
    { name: 'enabled', label: 'settings.f.enabled', kind: 'switch' },
    { name: 'delaySeconds', label: 'settings.f.delaySeconds', kind: 'number' },
    { name: 'intervalSeconds', label: 'settings.f.intervalSeconds', kind: 'number' },
    { name: 'maxTimes', label: 'settings.f.maxTimes', kind: 'number', hint: 'settings.hint.zeroUnlimited' },
    { name: 'text', label: 'settings.f.inviteText', kind: 'textarea' },
    { name: 'acceptText', label: 'settings.f.acceptText' },
    { name: 'laterText', label: 'settings.f.laterText' },
    { name: 'image', label: 'settings.f.image', hint: 'settings.hint.address' },
    { name: 'days', label: 'settings.f.days', kind: 'checkboxes', options: WEEK, hint: 'settings.hint.everyDay' },
    { name: 'hours', label: 'settings.f.hours', kind: 'timeRange', hint: 'settings.hint.allDay' },
  ],
  fromForm: withoutEmptyDays,
  preview: (value, device) => <InvitationPreview box={value[device]} device={device} />,
};

export function TakeIconPage() {
  return <SettingsForm spec={takeIcon} />;
}

export function FloatNavigationPage() {
  return <SettingsForm spec={floatNavigation} />;
}

export function InvitationBoxPage() {
  return <SettingsForm spec={invitationBox} />;
}
