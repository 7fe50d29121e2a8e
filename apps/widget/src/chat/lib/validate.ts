import type { WidgetSettings } from '@parley/protocol';

export type LetterField = 'name' | 'phone' | 'email' | 'content';
export type LetterValues = Record<LetterField, string>;
export type FieldError = 'required' | 'invalid' | 'tooLong';
export type LetterErrors = Partial<Record<LetterField, FieldError>>;

/** The same limits the server applies (letterBody in the protocol), checked before the round trip. */
const MAX: Record<LetterField, number> = { name: 64, phone: 32, email: 254, content: 2000 };
const PHONE = /^[\d\s+()-]*$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Validates the leave-a-message form: shown fields, which of them are required, content always. */
export function validateLetter(values: LetterValues, settings: WidgetSettings['letter']): LetterErrors {
  const errors: LetterErrors = {};
  const shown: LetterField[] = [...settings.fields, 'content'];
  for (const field of shown) {
    const value = values[field].trim();
    const required = field === 'content' || settings.required.includes(field);
    if (value === '') {
      if (required) errors[field] = 'required';
    } else if (value.length > MAX[field]) errors[field] = 'tooLong';
    else if (field === 'phone' && (!PHONE.test(value) || !/\d{3,}/.test(value.replace(/\D/g, '')))) errors[field] = 'invalid';
    else if (field === 'email' && !EMAIL.test(value)) errors[field] = 'invalid';
  }
  return errors;
}

export interface PickedFile {
  name: string;
  size: number;
  type: string;
}
export type FileProblem = 'empty' | 'tooLarge' | 'type';

/**
 * Checks a picked file against the upload settings before anything is sent. Types may be exact
 * (`image/png`), a family (`image/*`) or an extension (`.pdf`); an empty list leaves it to the server.
 */
export function checkFile(file: PickedFile, upload: WidgetSettings['upload']): FileProblem | null {
  if (file.size === 0) return 'empty';
  if (upload.maxBytes > 0 && file.size > upload.maxBytes) return 'tooLarge';
  if (upload.types.length === 0) return null;
  const type = file.type.toLowerCase();
  const name = file.name.toLowerCase();
  const accepted = upload.types.some((rule) => {
    const wanted = rule.trim().toLowerCase();
    if (wanted.startsWith('.')) return name.endsWith(wanted);
    if (wanted.endsWith('/*')) return type.startsWith(wanted.slice(0, -1));
    return type === wanted;
  });
  return accepted ? null : 'type';
}

/** The `accept` attribute of the file input, from the same settings. */
export function acceptAttribute(upload: WidgetSettings['upload']): string {
  return upload.types.join(',');
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}
