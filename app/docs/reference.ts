/**
 * The API reference as /docs serves it, read from the OpenAPI document alone: one page per tag
 * (`/docs/checkout-sessions`), each object shown on the page of the first domain that answers it,
 * and a search over operations, objects, fields and error codes.
 */
import { HTTP_METHODS, isReference, type HttpMethod, type OpenAPIObject, type OperationObject, type ParameterObject, type ResponseObject, type SchemaObject } from '@/server/openapi/types';
import { errorCodesOf, refName, resolveSchema, type AnySchema } from './schema-rows';

export const DOCS_PATH = '/docs';

export interface Operation {
  /** The operationId: the operation's anchor on its domain's page. */
  id: string;
  method: HttpMethod;
  /** As a request line shows it, `/api/v1/products`: the server's path plus the operation's. */
  fullPath: string;
  operation: OperationObject;
}

export interface Domain {
  name: string;
  slug: string;
  description?: string;
  operations: Operation[];
  /** The objects first answered (or taken) by this domain's operations, shown on its page. */
  schemas: string[];
}

export interface Reference {
  document: OpenAPIObject;
  /** `https://pay.example.com/api/v1`. */
  serverUrl: string;
  /** `/api/v1`. */
  pathPrefix: string;
  domains: Domain[];
  /** Where each object is shown: `/docs/products#schema-Product`. */
  schemaHref(name: string): string;
}

export const anchor = (value: string) => value.replace(/[^A-Za-z0-9_-]+/g, '-');
export const schemaAnchor = (name: string) => `schema-${anchor(name)}`;
export const slugOf = (tag: string) =>
  tag
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function resolveParameter(document: OpenAPIObject, parameter: NonNullable<OperationObject['parameters']>[number]): ParameterObject | undefined {
  if (!isReference(parameter)) return parameter;
  const target = document.components?.parameters?.[refName(parameter.$ref)];
  return target && !isReference(target) ? target : undefined;
}

export function resolveResponse(document: OpenAPIObject, response: ResponseObject | { $ref: string }): ResponseObject | undefined {
  if (!isReference(response)) return response;
  const target = document.components?.responses?.[refName(response.$ref)];
  return target && !isReference(target) ? target : undefined;
}

/** Every named schema a schema uses, itself included, through the components it names. */
function schemasReachedFrom(document: OpenAPIObject, schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) schemasReachedFrom(document, item, found);
  } else if (typeof schema === 'object' && schema !== null) {
    if (isReference(schema) && schema.$ref.startsWith('#/components/schemas/')) {
      const name = refName(schema.$ref);
      if (!found.has(name)) {
        found.add(name);
        schemasReachedFrom(document, document.components?.schemas?.[name], found);
      }
    }
    for (const value of Object.values(schema)) schemasReachedFrom(document, value, found);
  }
  return found;
}

/** What an operation answers on success and takes as its body, in that order. */
function operationSchemas(document: OpenAPIObject, operation: OperationObject): string[] {
  const successes = Object.entries(operation.responses ?? {}).filter(([status]) => Number(status) < 400);
  const body = operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody.content : undefined;
  return [...schemasReachedFrom(document, [successes.map(([, response]) => response), body])];
}

const references = new WeakMap<OpenAPIObject, Reference>();

/** Built once per document (which is built once per base URL). */
export function referenceOf(document: OpenAPIObject): Reference {
  let reference = references.get(document);
  if (!reference) {
    reference = buildReference(document);
    references.set(document, reference);
  }
  return reference;
}

function buildReference(document: OpenAPIObject): Reference {
  const serverUrl = document.servers?.[0]?.url ?? '';
  const pathPrefix = serverUrl ? new URL(serverUrl).pathname.replace(/\/+$/, '') : '';
  const byTag = new Map<string, Operation[]>((document.tags ?? []).map((tag) => [tag.name, []]));
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), { id: anchor(operation.operationId ?? `${method}-${path}`), method, fullPath: `${pathPrefix}${path}`, operation }]);
    }
  }
  const descriptions = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
  const homes = new Map<string, string>([['Error', DOCS_PATH]]);
  const domains = [...byTag]
    .filter(([, operations]) => operations.length > 0)
    .map(([name, operations]): Domain => {
      const slug = slugOf(name);
      const schemas = operations.flatMap(({ operation }) => operationSchemas(document, operation)).filter((schema) => !homes.has(schema));
      for (const schema of schemas) homes.set(schema, `${DOCS_PATH}/${slug}`);
      return { name, slug, description: descriptions.get(name), operations, schemas: [...new Set(schemas)] };
    });
  return {
    document,
    serverUrl,
    pathPrefix,
    domains,
    schemaHref: (name) => `${homes.get(name) ?? DOCS_PATH}#${schemaAnchor(name)}`,
  };
}

/** Each error code with the statuses it is answered with, by status. */
export function errorCodesByStatus(document: OpenAPIObject): [string, string[]][] {
  const byStatus = new Map<string, Set<string>>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        const codes = errorCodesOf((response as { content?: Record<string, { schema?: AnySchema }> }).content?.['application/json']?.schema);
        if (codes.length > 0) byStatus.set(status, new Set([...(byStatus.get(status) ?? []), ...codes]));
      }
    }
  }
  return [...byStatus.entries()].sort(([a], [b]) => Number(a) - Number(b)).map(([status, codes]) => [status, [...codes]]);
}

/** An operation's parameters and top-level body fields (of every mode of a `oneOf` body), with their descriptions. */
function requestFields(document: OpenAPIObject, operation: OperationObject): Map<string, string | undefined> {
  const fields = new Map<string, string | undefined>();
  for (const parameter of operation.parameters ?? []) {
    const resolved = resolveParameter(document, parameter);
    if (resolved) fields.set(resolved.name, resolved.description);
  }
  const body = operation.requestBody && !isReference(operation.requestBody) ? resolveSchema(document, operation.requestBody.content['application/json']?.schema) : undefined;
  for (const variant of body?.oneOf ?? (body ? [body] : [])) {
    for (const [name, schema] of Object.entries(resolveSchema(document, variant)?.properties ?? {})) {
      if (!fields.has(name)) fields.set(name, isReference(schema) ? undefined : schema.description);
    }
  }
  return fields;
}

export interface SearchHit {
  kind: 'operation' | 'object' | 'field' | 'error code';
  /** What the hit is, in markdown: `POST /api/v1/refunds`, `` `amount` of `Refund` ``. */
  title: string;
  /** Its summary or description, if any. */
  detail?: string;
  href: string;
}

/** Case-insensitive: every word of the query must appear in the hit's text. */
export function searchReference(reference: Reference, query: string): SearchHit[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const matches = (...texts: (string | undefined)[]) => {
    const text = texts.join(' ').toLowerCase();
    return words.every((word) => text.includes(word));
  };
  // A field is a hit when the query names it, possibly with words of where it is.
  const matchesField = (field: string, ...where: (string | undefined)[]) => words.some((word) => field.toLowerCase().includes(word)) && matches(field, ...where);
  const hits: SearchHit[] = [];
  const { document } = reference;
  const operationFields: SearchHit[] = [];
  for (const domain of reference.domains) {
    for (const { id, method, fullPath, operation } of domain.operations) {
      const title = `${method.toUpperCase()} ${fullPath}`;
      const href = `${DOCS_PATH}/${domain.slug}#${id}`;
      if (matches(title, operation.summary, operation.description, operation.operationId, domain.name)) {
        hits.push({ kind: 'operation', title: `\`${title}\``, detail: operation.summary, href });
      }
      for (const [field, description] of requestFields(document, operation)) {
        if (matchesField(field, description, title, operation.summary)) operationFields.push({ kind: 'field', title: `\`${field}\` of \`${title}\``, detail: description, href });
      }
    }
  }
  const schemas = reference.document.components?.schemas ?? {};
  for (const [name, schema] of Object.entries(schemas)) {
    const resolved = schema as SchemaObject;
    if (matches(name, resolved.description)) hits.push({ kind: 'object', title: `\`${name}\``, detail: resolved.description, href: reference.schemaHref(name) });
  }
  for (const [name, schema] of Object.entries(schemas)) {
    for (const [field, fieldSchema] of Object.entries((schema as SchemaObject).properties ?? {})) {
      const description = isReference(fieldSchema) ? undefined : fieldSchema.description;
      if (matchesField(field, description, name)) hits.push({ kind: 'field', title: `\`${field}\` of \`${name}\``, detail: description, href: reference.schemaHref(name) });
    }
  }
  hits.push(...operationFields);
  for (const [status, codes] of errorCodesByStatus(reference.document)) {
    for (const code of codes.filter((candidate) => matches(candidate, status))) hits.push({ kind: 'error code', title: `\`${code}\``, detail: `HTTP ${status}`, href: `${DOCS_PATH}#errors` });
  }
  return hits;
}
