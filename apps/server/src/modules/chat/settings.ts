import type { WidgetSettings } from '@parley/protocol';

export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
export const FILE_TYPES = [
  'application/pdf',
  'text/plain',
  'application/zip',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
];

/** The widget's look and behaviour until the settings pages change them. */
export function defaultWidgetSettings(lang: 'zh' | 'en'): Omit<WidgetSettings, 'online'> {
  return {
    color: '#1677ff',
    title: lang === 'zh' ? '在线客服' : 'Chat with us',
    welcome: lang === 'zh' ? '您好，有什么可以帮您？' : 'Hello! How can we help you?',
    launcherText: '',
    position: 'right',
    icon: '',
    preChat: { enabled: false, fields: ['name'] },
    letter: { fields: ['name', 'phone', 'email'], required: ['name'] },
    invitation: { enabled: false, delaySeconds: 15, text: lang === 'zh' ? '需要帮助吗？点击与我们聊天' : 'Need help? Chat with us' },
    rating: true,
    upload: { maxBytes: UPLOAD_MAX_BYTES, types: [...IMAGE_TYPES, ...FILE_TYPES] },
  };
}
