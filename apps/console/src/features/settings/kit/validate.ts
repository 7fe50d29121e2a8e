import type { z } from 'zod';
import { type Problem, problemOf } from '../../shared/fields';

export type FieldPath = (string | number)[];

export function pathKey(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

export interface Checked<T> {
  /** The parsed page (defaults filled in) when every value is acceptable. */
  value?: T;
  /** The first problem of each refused field, by its dotted path. */
  problems: Map<string, Problem>;
}

/** Checks the whole page against its schema, as the server will, and keeps one problem per field. */
export function checkPage<T>(schema: z.ZodType<T>, values: unknown): Checked<T> {
  const result = schema.safeParse(values);
  if (result.success) return { value: result.data, problems: new Map() };
  const problems = new Map<string, Problem>();
  for (const issue of result.error.issues) {
    const key = pathKey(issue.path);
    if (!problems.has(key)) problems.set(key, problemOf(issue));
  }
  return { problems };
}
