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

/** A percent-escape of a byte past ASCII: only a query holding one can fail to be UTF-8. */
const HIGH_BYTE_ESCAPE = /%[89a-f][0-9a-f]/i;
/** A `%` that starts no escape: URLSearchParams reads it as itself. */
const STRAY_PERCENT = /%(?![0-9a-f]{2})/gi;

/** Whether a raw query name or value percent-decodes to UTF-8 (an encoded surrogate is not UTF-8). */
function decodesAsUtf8(raw: string): boolean {
  try {
    decodeURIComponent(raw.replace(STRAY_PERCENT, '%25'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The first parameter of a raw query (`?a=1&b=2`) whose name or value is not UTF-8 once
 * percent-decoded, named as it decodes (a name that does not decode, as it was sent).
 * URLSearchParams would read such bytes as U+FFFD, a value nobody sent.
 */
function undecodableParam(search: string): string | undefined {
  if (!HIGH_BYTE_ESCAPE.test(search)) return undefined;
  for (const part of search.slice(1).split('&')) {
    if (!HIGH_BYTE_ESCAPE.test(part)) continue;
    const equals = part.indexOf('=');
    const name = equals === -1 ? part : part.slice(0, equals);
    if (!decodesAsUtf8(name)) return name;
    if (!decodesAsUtf8(part.slice(equals + 1))) return decodeURIComponent(name.replace(/\+/g, ' ').replace(STRAY_PERCENT, '%25'));
  }
  return undefined;
}

/**
 * The same rule for a URL's query: a parameter's name or any of its values, and first the
 * percent-encoding itself, which must be UTF-8.
 */
export function refuseUnsafeQuery(url: URL): void {
  const undecodable = undecodableParam(url.search);
  if (undecodable !== undefined) {
    const param = isSafeText(undecodable) ? undecodable : JSON.stringify(undecodable).slice(1, -1);
    throw new ApiError('parameter_invalid', `Invalid ${param}: its percent-encoding is not UTF-8.`, { param });
  }
  for (const [name, value] of url.searchParams) {
    if (!isSafeText(name)) refuseUnsafeText({ [name]: '' });
    refuseUnsafeText(value, [name]);
  }
}
