import { z } from 'zod';

/**
 * trpc-to-openapi switches on zod coercion for every number/boolean leaf of a request body
 * ("500" → 500, "false" → true), while numeric strings must be refused. A pipe is never
 * coerced, and still documents as its input type, so body leaves go through `strict()`.
 * test/http/schemas.test.ts fails on any bare number or boolean leaf in a body schema.
 */
export function strict<T extends z.ZodType>(schema: T) {
  return schema.transform((value) => value);
}

export const strictInt = () => strict(z.number().int());
export const strictBoolean = () => strict(z.boolean());

/** For query strings: `?x=false` must not read as true, as `z.boolean()` would. */
export const queryBoolean = () => z.enum(['true', 'false']);
