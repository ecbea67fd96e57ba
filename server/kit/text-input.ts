/**
 * The one rule every text input meets before it can reach the database: PostgreSQL refuses
 * U+0000 in text, and an unpaired surrogate is not text at all (it cannot be encoded as UTF-8).
 * Each way in (the API's body, query and tRPC input) applies it to what it has read, so such a
 * string is a 400 naming its field, never a failure of the database.
 */
import { ApiError } from '../errors';

type PathPart = string | number;

/** `images[2]`, `metadata.plan`: how a field is named in error messages and `param`. */
export function formatParam(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    return out === '' ? String(part) : `${out}.${String(part)}`;
  }, '');
}

/** U+0000, or a surrogate outside a pair (with the `u` flag a pair reads as one code point). */
const UNSAFE_TEXT = /[\u0000\p{Cs}]/u;

export function isSafeText(text: string): boolean {
  return !UNSAFE_TEXT.test(text);
}

/**
 * The path of the first string (value or object key) in `value` that is not safe text. Walked
 * without recursion: a body may nest as deep as its size allows.
 */
export function findUnsafeText(value: unknown, base: readonly PathPart[] = []): PathPart[] | undefined {
  const pending: { value: unknown; path: readonly PathPart[] }[] = [{ value, path: base }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value: current, path } = item;
    if (typeof current === 'string') {
      if (!isSafeText(current)) return [...path];
    } else if (Array.isArray(current)) {
      // Pushed last to first, so fields are judged in the order they were sent.
      for (let index = current.length - 1; index >= 0; index -= 1) pending.push({ value: current[index], path: [...path, index] });
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current);
      const unsafeKey = entries.find(([key]) => !isSafeText(key));
      if (unsafeKey) return [...path, unsafeKey[0]];
      for (const [key, element] of entries.reverse()) pending.push({ value: element, path: [...path, key] });
    }
  }
  return undefined;
}

/** Throws 400 `parameter_invalid` naming the first field of `value` that holds unsafe text. */
export function refuseUnsafeText(value: unknown, base: readonly PathPart[] = []): void {
  const path = findUnsafeText(value, base);
  if (path === undefined) return;
  // The field's own name may be what is unsafe: named as JSON would escape it.
  const param = formatParam(path.map((part) => (typeof part === 'string' && !isSafeText(part) ? JSON.stringify(part).slice(1, -1) : part)));
  throw new ApiError('parameter_invalid', `Invalid ${param}: text must not contain NUL characters (U+0000) or unpaired surrogates.`, { param });
}

/** The same rule for a query string: a parameter's name or any of its values. */
export function refuseUnsafeQuery(params: URLSearchParams): void {
  for (const [name, value] of params) {
    if (!isSafeText(name)) refuseUnsafeText({ [name]: '' });
    refuseUnsafeText(value, [name]);
  }
}
