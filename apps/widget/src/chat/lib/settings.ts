import { type Message, type ResponseOf, settingsDefaults, toWidgetSettings, type WidgetSettings } from '@parley/protocol';

export { MAX_MESSAGE_LENGTH } from '@parley/protocol';

/** `data` of `POST /api/visitor/init` (CONTRACT §5). */
export type InitData = ResponseOf<'POST /api/visitor/init'>;
/** `data` of `POST /api/visitor/upload`. */
export type UploadData = ResponseOf<'POST /api/visitor/upload'>;

/** The settings pages' defaults; title and welcome stay empty so the widget's own UI strings show. */
export const DEFAULT_SETTINGS: WidgetSettings = {
  ...toWidgetSettings(settingsDefaults, { lang: 'zh', online: true }),
  title: '',
  welcome: '',
};

type Record_ = Record<string, unknown>;
const isRecord = (value: unknown): value is Record_ => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);
const bool = (value: unknown, fallback: boolean) => (typeof value === 'boolean' ? value : fallback);
const num = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const FIELDS = ['name', 'phone', 'email'] as const;
type ContactField = (typeof FIELDS)[number];
const fields = (value: unknown, fallback: ContactField[]): ContactField[] =>
  Array.isArray(value) ? FIELDS.filter((field) => value.includes(field)) : fallback;

/**
 * Settings as the widget uses them: whatever the server sent, with every missing or mistyped part
 * taken from the defaults, so an older or newer server never leaves the window half drawn.
 */
export function normalizeSettings(raw: unknown): WidgetSettings {
  const d = DEFAULT_SETTINGS;
  const s = isRecord(raw) ? raw : {};
  const preChat = isRecord(s.preChat) ? s.preChat : {};
  const letter = isRecord(s.letter) ? s.letter : {};
  const invitation = isRecord(s.invitation) ? s.invitation : {};
  const upload = isRecord(s.upload) ? s.upload : {};
  const color = str(s.color, d.color);
  return {
    ...d,
    color: /^#[0-9a-f]{3}(?:[0-9a-f]{3})?$/i.test(color) ? color : d.color,
    title: str(s.title, d.title),
    welcome: str(s.welcome, d.welcome),
    launcherText: str(s.launcherText, d.launcherText),
    position: s.position === 'left' ? 'left' : 'right',
    icon: str(s.icon, d.icon),
    preChat: { enabled: bool(preChat.enabled, false), fields: fields(preChat.fields, d.preChat.fields), required: fields(preChat.required, []) },
    letter: { fields: fields(letter.fields, d.letter.fields), required: fields(letter.required, d.letter.required) },
    invitation: {
      enabled: bool(invitation.enabled, false),
      delaySeconds: Math.max(0, num(invitation.delaySeconds, d.invitation.delaySeconds)),
      text: str(invitation.text, d.invitation.text),
    },
    online: bool(s.online, true),
    rating: bool(s.rating, true),
    upload: {
      enabled: bool(upload.enabled, d.upload.enabled),
      maxBytes: Math.max(0, num(upload.maxBytes, d.upload.maxBytes)),
      types: Array.isArray(upload.types) ? upload.types.filter((type): type is string => typeof type === 'string') : d.upload.types,
    },
  };
}

/** A pushed message is used only when it has the shape of CONTRACT §4's Message. */
export function isMessage(value: unknown): value is Message {
  return (
    isRecord(value) &&
    typeof value.seq === 'number' &&
    typeof value.onlyID === 'string' &&
    typeof value.msg === 'string' &&
    typeof value.role === 'string' &&
    typeof value.type === 'string'
  );
}
