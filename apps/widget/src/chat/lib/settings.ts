import { MAX_MESSAGE_LENGTH, type Message, type ResponseOf, type WidgetSettings } from '@parley/protocol';
import { safeColor } from '../../colour';

export { MAX_MESSAGE_LENGTH };

/** `data` of `POST /api/visitor/init` (CONTRACT §5). */
export type InitData = ResponseOf<'POST /api/visitor/init'>;
/** `data` of `POST /api/visitor/upload`. */
export type UploadData = ResponseOf<'POST /api/visitor/upload'>;

/**
 * The settings as the server projected them from the settings pages (the protocol's toWidgetSettings,
 * the one place their defaults live). What ends up in CSS or a length is checked once more here.
 */
export function normalizeSettings(settings: WidgetSettings): WidgetSettings {
  const positive = (value: number, fallback: number) => (Number.isFinite(value) && value > 0 ? value : fallback);
  return {
    ...settings,
    color: safeColor(settings.color),
    maxLength: Math.min(positive(settings.maxLength, MAX_MESSAGE_LENGTH), MAX_MESSAGE_LENGTH),
    autoCloseMinutes: Math.max(0, Number.isFinite(settings.autoCloseMinutes) ? settings.autoCloseMinutes : 0),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

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
