/**
 * The example of each operation, from the `examples` of the OpenAPI document (the schemas state
 * them, so generated clients carry the same ones): a curl request and the answer it gets.
 */
import { isReference, type OpenAPIObject, type OperationObject, type ResponseObject, type SchemaObject } from '@/server/openapi/types';
import { refName, type AnySchema } from './schema-rows';
import { resolveParameter, type Operation } from './reference';

export interface OperationExample {
  curl: string;
  status: string;
  /** The answer's body, two-space JSON; absent when the document states none. */
  response?: string;
}

/** The first example a schema states: its own (also beside a `$ref`), else its component's. */
export function firstExample(document: OpenAPIObject, schema: AnySchema | undefined): unknown {
  if (!schema) return undefined;
  const own = (schema as SchemaObject).examples;
  if (Array.isArray(own) && own.length > 0) return own[0];
  if (!isReference(schema)) return undefined;
  return firstExample(document, document.components?.schemas?.[refName(schema.$ref)]);
}

/** Single-quoted for a POSIX shell: a `'` inside ends the quote, is escaped, and reopens it. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The key an operation takes, as the shell variable the examples use: `$SK`, or `$PK` in the browser. */
function keyVariable(operation: OperationObject): string | undefined {
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (schemes.length === 0) return undefined;
  return schemes.includes('secretKey') ? '$SK' : '$PK';
}

export function operationExample(document: OpenAPIObject, serverUrl: string, { method, fullPath, operation }: Operation): OperationExample {
  const parameters = (operation.parameters ?? []).map((parameter) => resolveParameter(document, parameter)).filter((parameter) => parameter !== undefined);
  let url = `${new URL(serverUrl).origin}${fullPath}`;
  for (const parameter of parameters.filter((candidate) => candidate.in === 'path')) {
    const value = firstExample(document, parameter.schema);
    if (typeof value === 'string') url = url.replace(`{${parameter.name}}`, encodeURIComponent(value));
  }
  const content = operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody.content['application/json'] : undefined;
  const body = firstExample(document, content?.schema);
  const lines = [`curl${method === 'get' || (method === 'post' && body !== undefined) ? '' : ` -X ${method.toUpperCase()}`} ${url}`];
  const key = keyVariable(operation);
  if (key) lines.push(`-H "Authorization: Bearer ${key}"`);
  // Every POST and PATCH is JSON, with or without a body.
  if (method === 'post' || method === 'patch') lines.push(`-H 'Content-Type: application/json'`);
  const idempotencyKey = parameters.find((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');
  const idempotencyExample = idempotencyKey && firstExample(document, idempotencyKey.schema);
  if (typeof idempotencyExample === 'string') lines.push(`-H ${shellQuote(`Idempotency-Key: ${idempotencyExample}`)}`);
  if (body !== undefined) lines.push(`-d ${shellQuote(JSON.stringify(body, null, 2))}`);

  // A create answers 201 (its 200 is the replay of a repeated Idempotency-Key).
  const status = ['201', '200'].find((code) => operation.responses?.[code]) ?? '200';
  const success = operation.responses?.[status] as ResponseObject | undefined;
  const answer = firstExample(document, success?.content?.['application/json']?.schema);
  return { curl: lines.join(' \\\n  '), status, ...(answer === undefined ? {} : { response: JSON.stringify(answer, null, 2) }) };
}
