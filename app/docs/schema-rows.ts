/**
 * Reads JSON Schemas of the OpenAPI document into what the reference page shows: a type label,
 * human constraints, and one row per field, nested objects flattened as `line_items[].price_id`.
 */
import { isReference, type OpenAPIObject, type ReferenceObject, type SchemaObject } from '@/server/openapi/types';

export type AnySchema = SchemaObject | ReferenceObject;

export interface TypeLabel {
  text: string;
  /** Set when the type is a named schema, to link to its section. */
  ref?: string;
}

export interface FieldRow {
  name: string;
  type: TypeLabel;
  required: boolean;
  description?: string;
  constraints: string[];
  /** The allowed values of an enum field, listed apart because there can be dozens. */
  values?: string[];
}

export const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/** The named schema behind a `$ref`, or the schema itself. */
export function resolveSchema(document: OpenAPIObject, schema: AnySchema | undefined): SchemaObject | undefined {
  if (!schema) return undefined;
  if (!isReference(schema)) return schema;
  const target = document.components?.schemas?.[refName(schema.$ref)];
  return target ? resolveSchema(document, target) : undefined;
}

const isNull = (schema: AnySchema) => !isReference(schema) && schema.type === 'null';

/** `anyOf: [X, null]` and `type: [x, 'null']` are "X or null"; this is the X. */
function withoutNull(schema: SchemaObject): { schema: AnySchema; nullable: boolean } {
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants && variants.length === 2 && variants.some(isNull)) {
    return { schema: variants.find((variant) => !isNull(variant)) as AnySchema, nullable: true };
  }
  if (Array.isArray(schema.type) && schema.type.includes('null') && schema.type.length === 2) {
    return { schema: { ...schema, type: schema.type.find((type) => type !== 'null') }, nullable: true };
  }
  return { schema, nullable: false };
}

export function typeLabel(schema: AnySchema): TypeLabel {
  if (isReference(schema)) return { text: refName(schema.$ref), ref: refName(schema.$ref) };
  const { schema: inner, nullable } = withoutNull(schema);
  if (nullable) {
    const label = typeLabel(inner);
    return { ...label, text: `${label.text} or null` };
  }
  if (schema.allOf?.length === 1 && schema.allOf[0]) return typeLabel(schema.allOf[0]);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return { text: variants.map((variant) => typeLabel(variant).text).join(' or ') };
  if (schema.type === 'array') {
    const item = schema.items ? typeLabel(schema.items) : { text: 'any' };
    return { ...item, text: `${item.text}[]` };
  }
  if (Array.isArray(schema.type)) return { text: schema.type.join(' or ') };
  return { text: schema.type ?? 'any' };
}

const code = (value: unknown) => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;

/** zod's `.int()` bounds every integer by the safe range: true, but noise to a reader. */
const isSafeIntegerBound = (value: number | undefined) => value !== undefined && Math.abs(value) === Number.MAX_SAFE_INTEGER;

function range(min: number | undefined, max: number | undefined, noun?: string): string | undefined {
  const count = (n: number) => (noun === undefined ? `${n}` : `${n} ${noun}${n === 1 ? '' : 's'}`);
  if (min !== undefined && max !== undefined) return noun === undefined ? `${min}–${max}` : `${min}–${max} ${noun}s`;
  if (min !== undefined) return `at least ${count(min)}`;
  if (max !== undefined) return `at most ${count(max)}`;
  return undefined;
}

/** Validation rules as short phrases, in markdown: "1–255 characters", "one of `a`, `b`". */
export function constraintsOf(schema: AnySchema): string[] {
  if (isReference(schema)) return [];
  const { schema: inner } = withoutNull(schema);
  if (inner !== schema) return [...constraintsOf(inner), ...(schema.default !== undefined ? [`default ${code(schema.default)}`] : [])];
  const out: string[] = [];
  if (schema.const !== undefined) out.push(`always ${code(schema.const)}`);
  const chars = range(schema.minLength, schema.maxLength, 'character');
  if (chars) out.push(chars);
  const min = isSafeIntegerBound(schema.minimum) ? undefined : schema.minimum;
  const max = isSafeIntegerBound(schema.maximum) ? undefined : schema.maximum;
  const bounds = range(min, max);
  if (bounds) out.push(bounds);
  const items = range(schema.minItems, schema.maxItems, 'item');
  if (items) out.push(items);
  if (schema.pattern) out.push(`pattern ${code(schema.pattern)}`);
  if (schema.format) out.push(`format ${schema.format}`);
  if (schema.default !== undefined) out.push(`default ${code(schema.default)}`);
  if (schema.type === 'array' && schema.items && !isReference(schema.items) && schema.items.type !== 'object') {
    out.push(...constraintsOf(schema.items).map((rule) => `each ${rule}`));
  }
  return out;
}

/** The allowed values of an enum (or of an array's items), if the field has any. */
export function valuesOf(schema: AnySchema): string[] | undefined {
  if (isReference(schema)) return undefined;
  const { schema: inner } = withoutNull(schema);
  if (isReference(inner)) return undefined;
  if (inner.enum) return inner.enum.map(String);
  return inner.type === 'array' && inner.items ? valuesOf(inner.items) : undefined;
}

/** The object an inline field holds, if its fields should be listed under it. */
function inlineObject(schema: AnySchema): { schema: SchemaObject; suffix: string } | undefined {
  if (isReference(schema)) return undefined;
  const { schema: inner } = withoutNull(schema);
  if (isReference(inner)) return undefined;
  if (inner.type === 'object' && inner.properties) return { schema: inner, suffix: '.' };
  if (inner.type === 'array' && inner.items && !isReference(inner.items) && inner.items.type === 'object' && inner.items.properties) {
    return { schema: inner.items, suffix: '[].' };
  }
  return undefined;
}

/** One row per field of an object schema; fields of inline nested objects follow their parent. */
export function fieldRows(document: OpenAPIObject, schema: AnySchema | undefined, prefix = ''): FieldRow[] {
  const object = resolveSchema(document, schema);
  if (!object?.properties) return [];
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties).flatMap(([name, field]) => {
    const row: FieldRow = {
      name: `${prefix}${name}`,
      type: typeLabel(field),
      required: required.has(name),
      description: isReference(field) ? undefined : field.description,
      constraints: constraintsOf(field),
      values: valuesOf(field),
    };
    const nested = inlineObject(field);
    return nested ? [row, ...fieldRows(document, nested.schema, `${row.name}${nested.suffix}`)] : [row];
  });
}

/** The codes an error response of the document narrows `Error` to (server/openapi/errors.ts). */
export function errorCodesOf(schema: AnySchema | undefined): string[] {
  if (!schema || isReference(schema)) return [];
  for (const part of schema.allOf ?? []) {
    if (isReference(part)) continue;
    const error = part.properties?.error;
    const codeSchema = error && !isReference(error) ? error.properties?.code : undefined;
    if (codeSchema && !isReference(codeSchema) && codeSchema.enum) return codeSchema.enum.map(String);
  }
  return [];
}
