import { SettingsForm } from '../kit/SettingsForm';
import type { FormValues, PageSpec, SettingField } from '../kit/spec';
import { ChannelStatus, ServerUrl, TestCredentials } from './wechat';

/** What the mail form starts as when a site turns its own SMTP server on. */
const NEW_SMTP = { host: '', port: 465, secure: true, user: '', password: '', from: '', to: [] };

const softwareSetting: PageSpec<'softwareSetting'> = {
  page: 'softwareSetting',
  intro: 'settings.intro.softwareSetting',
  fields: [
    { name: 'siteName', label: 'settings.f.siteName' },
    { name: 'logo', label: 'settings.f.logo', hint: 'settings.hint.address' },
    { name: 'timezone', label: 'settings.f.timezone', hint: 'settings.hint.siteTimezone' },
    { name: 'uploadMaxMB', label: 'settings.f.uploadMaxMB', kind: 'number' },
    { name: 'retentionDays', label: 'settings.f.retentionDays', kind: 'number', hint: 'settings.hint.zeroForever' },
    { name: 'smtpEnabled', label: 'settings.f.smtpEnabled', kind: 'switch', hint: 'settings.hint.smtp' },
    {
      name: 'smtp',
      label: 'settings.f.smtp',
      kind: 'group',
      visible: (values) => values.smtpEnabled === true,
      fields: [
        { name: 'host', label: 'settings.f.host' },
        { name: 'port', label: 'settings.f.port', kind: 'number' },
        { name: 'secure', label: 'settings.f.secure', kind: 'switch' },
        { name: 'user', label: 'settings.f.user' },
        { name: 'password', label: 'settings.f.password', kind: 'password' },
        { name: 'from', label: 'settings.f.mailFrom' },
        { name: 'to', label: 'settings.f.mailTo', kind: 'tags', hint: 'settings.hint.mailTo' },
      ],
    },
  ],
  // The stored `smtp: null` (the server's own mail settings) is a switch in the form, the group kept while off.
  toForm: (value) => ({ ...value, smtpEnabled: value.smtp !== null, smtp: value.smtp ?? { ...NEW_SMTP } }),
  fromForm: ({ smtpEnabled, ...values }: FormValues) => ({ ...values, smtp: smtpEnabled ? values.smtp : null }),
};

const weChatApp = (name: 'officialAccount' | 'miniProgram'): SettingField => ({
  name,
  label: `settings.f.${name}`,
  kind: 'group',
  fields: [
    { name: 'enabled', label: 'settings.f.wechatEnabled', kind: 'switch', hint: 'settings.hint.wechatEnabled' },
    // Read-only, answered by the server beside the stored fields; the server drops them when the page is saved.
    { name: 'serverUrl', label: 'settings.f.serverUrl', hint: 'settings.hint.serverUrl', input: () => <ServerUrl /> },
    { name: 'appId', label: 'settings.f.appId' },
    { name: 'appSecret', label: 'settings.f.appSecret', kind: 'password' },
    { name: 'token', label: 'settings.f.token', kind: 'password' },
    { name: 'aesKey', label: 'settings.f.aesKey', kind: 'password', hint: 'settings.hint.aesKey' },
    ...(name === 'miniProgram'
      ? [
          {
            name: 'format',
            label: 'settings.f.wechatFormat',
            kind: 'select',
            options: [
              { value: 'xml', text: 'XML' },
              { value: 'json', text: 'JSON' },
            ],
          } satisfies SettingField,
        ]
      : []),
    { name: 'status', label: 'settings.f.wechatStatus', input: () => <ChannelStatus /> },
    { name: 'test', label: 'settings.f.wechatTest', hint: 'settings.hint.wechatTest', input: () => <TestCredentials channel={name} /> },
  ],
});

const weChatSetting: PageSpec<'weChatSetting'> = {
  page: 'weChatSetting',
  intro: 'settings.intro.weChatSetting',
  fields: [
    weChatApp('officialAccount'),
    weChatApp('miniProgram'),
    { name: 'windowQuota', label: 'settings.f.wechatWindowQuota', kind: 'number', hint: 'settings.hint.wechatWindowQuota' },
  ],
};

const desktopSetting: PageSpec<'desktopSetting'> = {
  page: 'desktopSetting',
  intro: 'settings.intro.desktopSetting',
  fields: [
    { name: 'notifyNewUser', label: 'settings.f.notifyNewUser', kind: 'switch' },
    { name: 'notifyNewMsg', label: 'settings.f.notifyNewMsg', kind: 'switch' },
    { name: 'notifyTransfer', label: 'settings.f.notifyTransfer', kind: 'switch' },
    { name: 'notifyLetter', label: 'settings.f.notifyLetter', kind: 'switch' },
    { name: 'titleBlink', label: 'settings.f.titleBlink', kind: 'switch' },
    { name: 'newUserSound', label: 'settings.f.newUserSound', hint: 'settings.hint.address' },
    { name: 'newMsgSound', label: 'settings.f.newMsgSound', hint: 'settings.hint.address' },
  ],
};

const appSetting: PageSpec<'appSetting'> = {
  page: 'appSetting',
  intro: 'settings.intro.appSetting',
  fields: [
    { name: 'allowedOrigins', label: 'settings.f.allowedOrigins', kind: 'tags', hint: 'settings.hint.allowedOrigins' },
    { name: 'visitorUploads', label: 'settings.f.visitorUploads', kind: 'switch' },
    { name: 'transcriptEmail', label: 'settings.f.transcriptEmail', kind: 'switch' },
  ],
};

export function SoftwareSettingPage() {
  return <SettingsForm spec={softwareSetting} />;
}

export function WeChatSettingPage() {
  return <SettingsForm spec={weChatSetting} />;
}

export function DesktopSettingPage() {
  return <SettingsForm spec={desktopSetting} />;
}

export function AppSettingPage() {
  return <SettingsForm spec={appSetting} />;
}
