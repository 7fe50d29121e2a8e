import { describe, expect, it } from 'vitest';
import { safeRedirect, validateAccount, validateMfaCode, validatePhone, validatePhoneLogin } from './validation';

describe('login form rules (seed §5)', () => {
  it('needs a username and a password of at least 6 characters', () => {
    expect(validateAccount({ username: ' ', password: '12345' })).toEqual({
      username: { key: 'auth.usernameRequired' },
      password: { key: 'auth.passwordMin', values: { min: 6 } },
    });
    expect(validateAccount({ username: 'admin', password: '123456' })).toEqual({});
  });

  it('needs a phone number, a valid one, and the code', () => {
    expect(validatePhone('')).toEqual({ phone: { key: 'auth.phoneRequired' } });
    expect(validatePhone('2345678901')).toEqual({ phone: { key: 'auth.phoneInvalid' } });
    expect(validatePhone('13800138000')).toEqual({});
    expect(validatePhoneLogin({ phone: '13800138000', code: '' })).toEqual({ code: { key: 'auth.codeRequired' } });
  });

  it('needs six digits from the app at the two-factor step, or any recovery code', () => {
    expect(validateMfaCode('12345', false)).toEqual({ code: { key: 'auth.mfaCodeRequired' } });
    expect(validateMfaCode('12a456', false)).toEqual({ code: { key: 'auth.mfaCodeRequired' } });
    expect(validateMfaCode(' 123456 ', false)).toEqual({});
    expect(validateMfaCode(' ', true)).toEqual({ code: { key: 'auth.recoveryCodeRequired' } });
    expect(validateMfaCode('abcd-efgh-jkmn-pqrs', true)).toEqual({});
  });

  it('follows only redirects inside the console', () => {
    expect(safeRedirect('/service/role?x=1')).toBe('/service/role?x=1');
    expect(safeRedirect('//evil.example')).toBe('/');
    expect(safeRedirect('https://evil.example')).toBe('/');
    expect(safeRedirect('/login?redirect=/x')).toBe('/');
    expect(safeRedirect(null)).toBe('/');
  });
});
