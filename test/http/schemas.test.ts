import { forEachOpenApiProcedure, getInputOutputParsers, type OpenApiProcedureRecord } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { strict } from '@/server/kit/json-schema';
import { appRouter } from '@/server/router';

type Schema = z.core.$ZodType;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/**
 * Where a body schema has a number or boolean (or bigint/date) leaf that trpc-to-openapi would
 * coerce ("500" → 500, "false" → true): any such leaf not inside a pipe, which the library never
 * coerces. Walks more kinds than the library does today, so a future version cannot surprise us.
 */
function bareLeaves(schema: Schema, at: string, ancestors = new Set<Schema>()): string[] {
  // A lazy schema may contain itself; a schema reused at two places is walked at both.
  if (ancestors.has(schema)) return [];
  ancestors.add(schema);
  try {
    return leavesOf(schema._zod.def as unknown as Record<string, any> & { type: string }, at, (child, path) => bareLeaves(child, path, ancestors));
  } finally {
    ancestors.delete(schema);
  }
}

function leavesOf(def: Record<string, any> & { type: string }, at: string, walk: (child: Schema, path: string) => string[]): string[] {
  switch (def.type) {
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'date':
      return [at];
    case 'pipe':
      return [];
    case 'object':
      return [...Object.entries(def.shape as Record<string, Schema>).flatMap(([key, child]) => walk(child, at === '' ? key : `${at}.${key}`)), ...(def.catchall ? walk(def.catchall, `${at}.*`) : [])];
    case 'array':
      return walk(def.element, `${at}[]`);
    case 'tuple':
      return [...(def.items as Schema[]).flatMap((item, index) => walk(item, `${at}[${index}]`)), ...(def.rest ? walk(def.rest, `${at}[]`) : [])];
    case 'record':
      return walk(def.valueType, `${at}.*`);
    case 'union':
      return (def.options as Schema[]).flatMap((option) => walk(option, at));
    case 'intersection':
      return [...walk(def.left, at), ...walk(def.right, at)];
    case 'lazy':
      return walk(def.getter(), at);
    default:
      return WRAPPERS.has(def.type) ? walk(def.innerType, at) : [];
  }
}

/** Mutations whose input is a JSON body. DELETE input is the query string, where coercion is wanted. */
function bodyInputs(): { name: string; schema: Schema }[] {
  const inputs: { name: string; schema: Schema }[] = [];
  forEachOpenApiProcedure(appRouter._def.procedures as OpenApiProcedureRecord, ({ path, type, procedure, meta }) => {
    if (type !== 'mutation' || !['POST', 'PATCH', 'PUT'].includes(meta.openapi.method)) return;
    inputs.push({ name: `${meta.openapi.method} ${meta.openapi.path} (${path})`, schema: getInputOutputParsers(procedure).inputParser });
  });
  return inputs;
}

describe('request body schemas', () => {
  it('the walker finds bare leaves at any depth and accepts strict() ones', () => {
    const count = z.number().int();
    const schema = z.strictObject({
      ok: strict(z.number().int()).optional(),
      flag: z.boolean().nullable().optional(),
      lines: z.array(z.object({ quantity: z.number(), price_id: z.string() })).max(3),
      nested: z.object({ deep: z.union([z.string(), z.number()]) }),
      strictArray: z.array(strict(z.boolean())),
      reused: z.object({ a: count, b: count }),
    });
    expect(bareLeaves(schema, '')).toEqual(['flag', 'lines[].quantity', 'nested.deep', 'reused.a', 'reused.b']);
  });

  it('every public mutation with a body has at least one, and none has a bare number or boolean leaf', () => {
    const inputs = bodyInputs();
    expect(inputs.length).toBeGreaterThan(0);
    const offenders = inputs.flatMap(({ name, schema }) => bareLeaves(schema, '').map((leaf) => `${name}: ${leaf}`));
    expect(offenders, 'wrap these leaves in strict() from server/kit/json-schema.ts').toEqual([]);
  });
});
