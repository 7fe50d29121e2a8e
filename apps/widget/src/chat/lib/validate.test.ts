import { describe, expect, it } from 'vitest';
import { checkFile, formatBytes, validateLetter } from './validate';

const empty = { name: '', phone: '', email: '', content: '' };

describe('validateLetter', () => {
  const letter = {
    fields: ['name', 'phone', 'email'] as ('name' | 'phone' | 'email')[],
    required: ['name'] as ('name' | 'phone' | 'email')[],
  };

  it('requires the content and the required fields', () => {
    expect(validateLetter(empty, letter)).toEqual({ name: 'required', content: 'required' });
  });

  it('accepts a complete form, optional fields left empty', () => {
    expect(validateLetter({ ...empty, name: 'Li Lei', content: 'Please call me' }, letter)).toEqual({});
  });

  it('checks phone and email formats when filled in', () => {
    const errors = validateLetter({ name: 'A', phone: 'call me', email: 'not-an-email', content: 'x' }, letter);
    expect(errors).toEqual({ phone: 'invalid', email: 'invalid' });
    expect(validateLetter({ name: 'A', phone: '+86 (10) 1234-5678', email: 'a@b.cn', content: 'x' }, letter)).toEqual({});
  });

  it('ignores fields the settings do not show', () => {
    expect(validateLetter({ ...empty, email: 'bad', content: 'hi' }, { fields: ['name'], required: [] })).toEqual({});
  });

  it('rejects whitespace-only and over-long values', () => {
    expect(validateLetter({ ...empty, name: '   ', content: 'x'.repeat(2001) }, letter)).toEqual({ name: 'required', content: 'tooLong' });
  });
});

describe('checkFile', () => {
  const upload = { enabled: true, maxBytes: 1024, types: ['image/*', 'application/pdf', '.txt'] };

  it('accepts matching types within the size limit', () => {
    expect(checkFile({ name: 'a.png', size: 10, type: 'image/png' }, upload)).toBeNull();
    expect(checkFile({ name: 'a.pdf', size: 1024, type: 'application/pdf' }, upload)).toBeNull();
    expect(checkFile({ name: 'NOTES.TXT', size: 5, type: '' }, upload)).toBeNull();
  });

  it('rejects large, empty and unlisted files', () => {
    expect(checkFile({ name: 'a.png', size: 1025, type: 'image/png' }, upload)).toBe('tooLarge');
    expect(checkFile({ name: 'a.png', size: 0, type: 'image/png' }, upload)).toBe('empty');
    expect(checkFile({ name: 'a.exe', size: 10, type: 'application/x-msdownload' }, upload)).toBe('type');
  });

  it('leaves the type to the server when no types are listed', () => {
    expect(checkFile({ name: 'a.bin', size: 10, type: '' }, { enabled: true, maxBytes: 0, types: [] })).toBeNull();
  });
});

describe('formatBytes', () => {
  it('speaks in B, KB and MB', () => {
    expect(formatBytes(500)).toBe('500 B');
    expect(formatBytes(2048)).toBe('2 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
    expect(formatBytes(20 * 1024 * 1024)).toBe('20 MB');
  });
});
