/**
 * Merchant metadata on the objects that carry it (checkout sessions, subscription checkouts,
 * portal sessions, subscriptions): one set of rules, one code (`metadata_invalid`).
 */

import { z } from 'zod';

export const METADATA_MAX_KEYS = 20;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_VALUE_LENGTH = 500;

export type Metadata = Record<string, string>;

/** Why `value` breaks a metadata rule, with the offending key when there is one; null when it is valid. */
export function metadataProblem(value: unknown): { message: string; key?: string } | null {
  // Omitted or null reads back as {}.
  if (value === undefined || value === null) return null;
  // A flat JSON object.
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { message: '`metadata` must be a JSON object of string keys and string, number or boolean values.' };
  }
  const entries = Object.entries(value);
  // At most 20 keys, each 1–40 characters.
  if (entries.length > METADATA_MAX_KEYS) return { message: `\`metadata\` may hold at most ${METADATA_MAX_KEYS} keys.` };
  for (const [key, item] of entries) {
    if (key.length < 1 || key.length > METADATA_MAX_KEY_LENGTH) {
      return { message: `Metadata keys must be 1–${METADATA_MAX_KEY_LENGTH} characters.`, key };
    }
    // Strings, numbers and booleans only; null, arrays and objects are refused.
    if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
      return { message: `Metadata values must be strings, numbers or booleans (\`${key}\` is not).`, key };
    }
    // Values are measured after coercion.
    if (String(item).length > METADATA_MAX_VALUE_LENGTH) {
      return { message: `Metadata values must be at most ${METADATA_MAX_VALUE_LENGTH} characters (\`${key}\` is longer).`, key };
    }
  }
  return null;
}

/**
 * Numbers and booleans become strings, null or omitted becomes {}. Keys keep the
 * order they arrived in (metadata is echoed verbatim), which is why the column is `json`, not `jsonb`.
 */
export function normalizeMetadata(value: Record<string, string | number | boolean> | null | undefined): Metadata {
  // fromEntries, not assignment: a key named `__proto__` stays an ordinary key.
  return Object.fromEntries(Object.entries(value ?? {}).map(([key, item]) => [key, String(item)]));
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Metadata as the API reads and answers it. Not `z.record`: zod's records and objects leave out
 * a key named `__proto__`, and every key is echoed verbatim. These schemas hand the object on as
 * it came (JSON.parse makes `__proto__` an own key); the document shows the record they check.
 */
function metadataSchema<T extends Record<string, unknown>>(valueTypes: readonly ('string' | 'number' | 'boolean')[]) {
  const additionalProperties = { type: valueTypes.length === 1 ? valueTypes[0]! : [...valueTypes] };
  return z
    .custom<T>((value) => isPlainObject(value) && Object.values(value).every((item) => valueTypes.includes(typeof item as 'string')), {
      message: `must be an object of ${valueTypes.join(', ')} values`,
    })
    .meta({ override: { type: 'object', propertyNames: { type: 'string' }, additionalProperties } });
}

/** What a create or update accepts (numbers and booleans become strings). */
export const metadataInputSchema = metadataSchema<Record<string, string | number | boolean>>(['string', 'number', 'boolean']);

/** What an object answers. */
export const metadataOutputSchema = metadataSchema<Metadata>(['string']);
