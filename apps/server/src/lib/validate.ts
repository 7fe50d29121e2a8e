import { CONTROL_CHARACTERS, REQUIRED } from '@parley/protocol';
import type { z } from 'zod';
import { ApiError } from './errors.js';
import { type Lang, type MessageKey, type MessageParams, translate } from './i18n.js';

/** A 400 whose message names the first offending field and says what is wrong with it. */
export class ValidationError extends ApiError {
  constructor(
    readonly field: string,
    readonly reasonKey: MessageKey,
    readonly reasonParams: MessageParams,
  ) {
    super(400, 'invalidField', { field });
  }

  override localized(lang: Lang): string {
    return translate(lang, 'invalidField', { field: this.field, reason: translate(lang, this.reasonKey, this.reasonParams) });
  }
}

export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {}, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new ValidationError('body', 'reasonInvalid', {});
  throw fromIssue(issue);
}

function fromIssue(issue: z.core.$ZodIssue): ValidationError {
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined || issue.input === null) return new ValidationError(field, 'reasonRequired', {});
      return new ValidationError(field, 'reasonType', { expected: issue.expected });
    case 'too_small':
      if (issue.origin === 'string' || issue.origin === 'array') {
        if (issue.origin === 'string' && Number(issue.minimum) === 1) {
          return new ValidationError(field, 'reasonRequired', {});
        }
        return new ValidationError(field, 'reasonTooShort', { min: Number(issue.minimum) });
      }
      return new ValidationError(field, 'reasonTooSmall', { min: Number(issue.minimum) });
    case 'too_big':
      if (issue.origin === 'string' || issue.origin === 'array')
        return new ValidationError(field, 'reasonTooLong', { max: Number(issue.maximum) });
      return new ValidationError(field, 'reasonTooBig', { max: Number(issue.maximum) });
    case 'invalid_format':
      return new ValidationError(field, 'reasonFormat', {});
    case 'invalid_value':
      return new ValidationError(field, 'reasonOneOf', { values: issue.values.map(String).join(', ') });
    case 'unrecognized_keys':
      return new ValidationError(issue.keys[0] ?? field, 'reasonUnknownKeys', {});
    case 'custom':
      if (issue.params?.reason === CONTROL_CHARACTERS) return new ValidationError(field, 'reasonControl', {});
      if (issue.params?.reason === REQUIRED) return new ValidationError(field, 'reasonRequired', {});
      return new ValidationError(field, 'reasonInvalid', {});
    case 'invalid_union': {
      const nested = issue.errors[0]?.[0];
      if (nested) return fromIssue({ ...nested, path: [...issue.path, ...nested.path] } as z.core.$ZodIssue);
      return new ValidationError(field, 'reasonInvalid', {});
    }
    default:
      return new ValidationError(field, 'reasonInvalid', {});
  }
}
