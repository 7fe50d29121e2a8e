import type { z } from 'zod';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** At most this many values are dropped before a page is given up for its defaults. */
const MAX_DROPS = 100;

/**
 * A stored value made to pass its schema by dropping only what fails: a field is removed (its default
 * takes its place), an array element that fails is removed whole. A page stored by an older version,
 * whose rules have since tightened, thus keeps everything the new rules still accept instead of falling
 * back to the defaults. Answers the parsed value and the dotted paths that were dropped, or undefined
 * when even that does not make it pass (the value is not an object, say).
 */
export function salvage<S extends z.ZodType>(schema: S, stored: unknown): { value: z.output<S>; dropped: string[] } | undefined {
  const work = structuredClone(stored);
  const dropped: string[] = [];
  for (let round = 0; round <= MAX_DROPS; round += 1) {
    const result = schema.safeParse(work);
    if (result.success) return { value: result.data, dropped };
    const path = result.error.issues[0]?.path ?? [];
    if (path.length === 0 || !drop(work, path)) return undefined;
    dropped.push(path.map(String).join('.'));
  }
  return undefined;
}

/** Removes the deepest array element on `path`, or else the key `path` ends in; false when neither exists. */
function drop(root: unknown, path: readonly PropertyKey[]): boolean {
  const deepestIndex = path.findLastIndex((key) => typeof key === 'number');
  const cut = deepestIndex >= 0 ? deepestIndex : path.length - 1;
  let at: unknown = root;
  for (const key of path.slice(0, cut)) {
    if (Array.isArray(at) && typeof key === 'number') at = at[key];
    else if (isObject(at) && typeof key === 'string') at = at[key];
    else return false;
  }
  const last = path[cut];
  if (Array.isArray(at) && typeof last === 'number' && last < at.length) {
    at.splice(last, 1);
    return true;
  }
  if (isObject(at) && typeof last === 'string' && last in at) {
    delete at[last];
    return true;
  }
  return false;
}
