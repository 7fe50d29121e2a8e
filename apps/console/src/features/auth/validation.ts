import { settings } from '../../lib/settings';

/** Error message keys per field; an empty object means the form may be sent. */
export type FieldErrors<K extends string> = Partial<Record<K, { key: string; values?: Record<string, unknown> }>>;

export const PHONE_PATTERN = /^1\d{10}$/;

/** Seed §5's login form messages. */
export function validateAccount(values: { username: string; password: string }): FieldErrors<'username' | 'password'> {
  const errors: FieldErrors<'username' | 'password'> = {};
  if (!values.username.trim()) errors.username = { key: 'auth.usernameRequired' };
  if (values.password.length < settings.minPasswordLength)
    errors.password = { key: 'auth.passwordMin', values: { min: settings.minPasswordLength } };
  return errors;
}

export function validatePhone(phone: string): FieldErrors<'phone'> {
  if (!phone.trim()) return { phone: { key: 'auth.phoneRequired' } };
  if (!PHONE_PATTERN.test(phone.trim())) return { phone: { key: 'auth.phoneInvalid' } };
  return {};
}

export function validatePhoneLogin(values: { phone: string; code: string }): FieldErrors<'phone' | 'code'> {
  const errors: FieldErrors<'phone' | 'code'> = { ...validatePhone(values.phone) };
  if (!values.code.trim()) errors.code = { key: 'auth.codeRequired' };
  return errors;
}

/** The code step of a two-factor sign-in: six digits from the app, or a recovery code. */
export function validateMfaCode(code: string, recovery: boolean): FieldErrors<'code'> {
  const value = code.trim();
  if (recovery) return value ? {} : { code: { key: 'auth.recoveryCodeRequired' } };
  return /^\d{6}$/.test(value) ? {} : { code: { key: 'auth.mfaCodeRequired' } };
}

/** Only paths inside the console are followed after login, never another site. */
export function safeRedirect(value: string | null): string {
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/login')) return '/';
  return value;
}
