import { CONTROL_CHARACTERS, REQUIRED } from '@parley/protocol';
import type { BadgeProps } from 'antd';
import type { Dayjs } from 'dayjs';
import type { ReactNode } from 'react';
import { z } from 'zod';
import type { Filters } from './list';

/** How a field is entered and shown. `date` is a moment: shown in the site's zone, searched by a day range. */
export type FieldKind = 'text' | 'textarea' | 'password' | 'number' | 'switch' | 'select' | 'tags' | 'date';
/** Where a field appears: the search form, the table, the edit form, the detail view. */
export type Place = 'search' | 'column' | 'form' | 'detail';

export interface FieldOption {
  value: string | number;
  /** An i18n key; or `text`, shown as is (data such as a role's name). */
  label?: string;
  text?: string;
  /** The column shows the option as a tag of this colour, or as a badge of this status. */
  color?: string;
  status?: BadgeProps['status'];
  disabled?: boolean;
}

/** Who the edit form is for: the row being edited, or null when creating. */
export type Editing<Row> = Row | null;

export interface Field<Row> {
  /** The row's property, the search filter and the form value of the same name. */
  key: string;
  /** An i18n key: column title, form label, search label and placeholder. */
  label: string;
  kind?: FieldKind;
  in: Place[];
  options?: FieldOption[];
  /** Search: the filter's name when it differs from `key`; a `date` field sends `from` and `to`. */
  filter?: string;
  range?: [from: string, to: string];
  searchWidth?: number;
  /** Column. */
  width?: number;
  ellipsis?: boolean;
  fixed?: 'left' | 'right';
  /** Sorts the rows on screen (the server's order is newest first); `true` compares the values. */
  sorter?: true | ((a: Row, b: Row) => number);
  /** Column and detail: what the cell shows instead of the kind's default. */
  render?: (row: Row) => ReactNode;
  /** Form: required beyond what the schema says (a password on create), disabled, hint (i18n key). */
  required?: (editing: Editing<Row>) => boolean;
  disabled?: (editing: Editing<Row>) => boolean;
  extra?: (editing: Editing<Row>) => string | undefined;
  /** Form: a control of the page's own; the form hands it `value` and `onChange` like any form control. */
  input?: (editing: Editing<Row>) => ReactNode;
}

export function fieldsIn<Row>(fields: Field<Row>[], place: Place): Field<Row>[] {
  return fields.filter((field) => field.in.includes(place));
}

/** The part of a zod object schema the kit reads: one schema per form field. */
export type FormSchema = z.ZodObject;

function fieldSchema(schema: FormSchema | undefined, key: string): z.ZodType | undefined {
  return schema?.shape[key] as z.ZodType | undefined;
}

/** What the schema says of a field's input, read once per schema and field. */
export interface FieldFacts {
  required: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  /** Whole numbers only: the number control steps by one and takes no decimals. */
  integer?: boolean;
}

const factsCache = new WeakMap<z.ZodType, FieldFacts>();

interface JsonFacts {
  type?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  anyOf?: JsonFacts[];
}

/** What one value's schema says of its input: required, longest text, number bounds. */
export function factsOf(field: z.ZodType | undefined): FieldFacts {
  if (!field) return { required: false };
  const cached = factsCache.get(field);
  if (cached) return cached;
  const json = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as JsonFacts;
  // An optional "empty or e-mail" is a union: its longest branch bounds the input.
  const lengths = [json.maxLength, ...(json.anyOf ?? []).map((branch) => branch.maxLength)].filter((n) => n !== undefined);
  const facts: FieldFacts = {
    required: !field.safeParse(undefined).success,
    maxLength: lengths.length > 0 ? Math.max(...lengths) : undefined,
    min: json.minimum ?? (json.exclusiveMinimum !== undefined ? json.exclusiveMinimum + 1 : undefined),
    max: json.maximum !== undefined && json.maximum < Number.MAX_SAFE_INTEGER ? json.maximum : undefined,
    integer: json.type === 'integer' || undefined,
  };
  factsCache.set(field, facts);
  return facts;
}

export function fieldFacts(schema: FormSchema | undefined, key: string): FieldFacts {
  return factsOf(fieldSchema(schema, key));
}

/** The wrappers that hold one inner schema and say nothing of the value's own shape. */
const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional']);

function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else return current;
  }
}

/**
 * The schema of the value at `path` inside a nested schema (through objects, list items, defaults and
 * optionals), so that a field deep in a settings page is bounded by the same facts as a list's field.
 */
export function schemaAt(schema: z.ZodType, path: readonly (string | number)[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const step of path) {
    if (!current) return undefined;
    const def = unwrapped(current)._zod.def as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType };
    if (def.type === 'object' && typeof step === 'string') current = def.shape?.[step];
    else if (def.type === 'array' && typeof step === 'number') current = def.element;
    else return undefined;
  }
  return current;
}

/**
 * A form value as the body sends it: an emptied optional input is left out when the schema refuses ''
 * (a password kept as it is), and sent as '' when the schema takes it (a remark cleared).
 */
export function bodyValue(schema: FormSchema | undefined, key: string, value: unknown): unknown {
  const field = fieldSchema(schema, key);
  if (value === null || value === '') {
    if (field && !field.safeParse(value).success && field.safeParse(undefined).success) return undefined;
  }
  return value;
}

/** An i18n key and its values: the message of a refused field, translated where it is shown. */
export interface Problem {
  key: string;
  values?: Record<string, unknown>;
}

export function problemOf(issue: z.core.$ZodIssue): Problem {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined || issue.input === null ? { key: 'kit.required' } : { key: 'kit.invalid' };
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1 ? { key: 'kit.required' } : { key: 'kit.minLength', values: { min: Number(issue.minimum) } };
      if (issue.origin === 'array') return { key: 'kit.minItems', values: { min: Number(issue.minimum) } };
      return { key: 'kit.min', values: { min: Number(issue.minimum) } };
    case 'too_big':
      if (issue.origin === 'string') return { key: 'kit.maxLength', values: { max: Number(issue.maximum) } };
      if (issue.origin === 'array') return { key: 'kit.maxItems', values: { max: Number(issue.maximum) } };
      return { key: 'kit.max', values: { max: Number(issue.maximum) } };
    case 'invalid_format':
    case 'invalid_union':
      return { key: 'kit.format' };
    case 'custom':
      if (issue.params?.reason === CONTROL_CHARACTERS) return { key: 'kit.controlCharacters' };
      return issue.params?.reason === REQUIRED ? { key: 'kit.required' } : { key: 'kit.invalid' };
    default:
      return { key: 'kit.invalid' };
  }
}

/** Checks one form value against the schema's field, as the server will: the first problem, if any. */
export function checkField(schema: FormSchema | undefined, key: string, value: unknown, required = false): Problem | undefined {
  const sent = bodyValue(schema, key, value);
  const empty = sent === undefined || sent === null || (typeof sent === 'string' && sent.trim() === '');
  if (required && empty) return { key: 'kit.required' };
  const field = fieldSchema(schema, key);
  if (!field) return undefined;
  const result = field.safeParse(sent);
  const issue = result.success ? undefined : result.error.issues[0];
  return issue ? problemOf(issue) : undefined;
}

/** The search form's values as the list's filters: trimmed text, days as picked (`YYYY-MM-DD`), nothing empty. */
export function searchFilters<Row>(fields: Field<Row>[], values: Record<string, unknown>): Filters {
  const filters: Filters = {};
  for (const field of fieldsIn(fields, 'search')) {
    const value = values[field.key];
    if (field.kind === 'date') {
      const [from, to] = field.range ?? ['from', 'to'];
      const range = value as [Dayjs | null, Dayjs | null] | null | undefined;
      // The picked calendar day, not a moment: the server reads it in the site's zone (CONTRACT §7).
      filters[from] = range?.[0]?.format('YYYY-MM-DD');
      filters[to] = range?.[1]?.format('YYYY-MM-DD');
      continue;
    }
    const name = field.filter ?? field.key;
    if (typeof value === 'string') filters[name] = value.trim() || undefined;
    else if (typeof value === 'number' || typeof value === 'boolean') filters[name] = value;
    else filters[name] = undefined;
  }
  return filters;
}

/** The option a value stands for, with its text in the current language. */
export function optionOf(field: { options?: FieldOption[] }, value: unknown): FieldOption | undefined {
  return field.options?.find((option) => option.value === value);
}

/** Compares two cells for a column's sorter: numbers as numbers, anything else as text. */
export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return String(a ?? '').localeCompare(String(b ?? ''));
}
