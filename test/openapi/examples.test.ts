/**
 * The examples of the OpenAPI document (what /docs shows and generated clients carry): every
 * operation has a sample answer, every body and path parameter a sample value, and each one is
 * what the service itself accepts and answers: its procedure's zod schemas parse it unchanged.
 */
import { forEachOpenApiProcedure, getInputOutputParsers, normalizePath, type OpenApiProcedureRecord } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument } from '@/server/openapi/document';
import { OPENAPI_FILE_BASE_URL } from '@/server/openapi/file';
import { type HTTP_METHODS, isReference, type OperationObject, type ParameterObject, type ResponseObject, type SchemaObject } from '@/server/openapi/types';
import { appRouter } from '@/server/router';
import type { ApiMeta } from '@/server/trpc';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

const document = buildOpenApiDocument(OPENAPI_FILE_BASE_URL);
const componentSchemas = document.components?.schemas ?? {};

interface Procedure {
  name: string;
  operation: OperationObject;
  input: z.ZodType;
  output: z.ZodType;
  meta: ApiMeta;
}

const procedures: Procedure[] = [];
forEachOpenApiProcedure(appRouter._def.procedures as OpenApiProcedureRecord, ({ procedure, meta }) => {
  const method = meta.openapi.method.toLowerCase() as (typeof HTTP_METHODS)[number];
  const route = normalizePath(meta.openapi.path);
  const { inputParser, outputParser } = getInputOutputParsers(procedure);
  procedures.push({ name: `${meta.openapi.method} ${route}`, operation: document.paths![route]![method]!, input: inputParser as z.ZodType, output: outputParser as z.ZodType, meta: meta as ApiMeta });
});

/** The example a response or body schema states: its own (beside a `$ref`), else its component's. */
function exampleOf(schema: SchemaObject | { $ref: string } | undefined): unknown {
  if (!schema) return undefined;
  const own = (schema as SchemaObject).examples as unknown[] | undefined;
  if (own) return own[0];
  if (!isReference(schema)) return undefined;
  return ((componentSchemas[schema.$ref.split('/').pop()!] as SchemaObject | undefined)?.examples as unknown[] | undefined)?.[0];
}

function successResponse(operation: OperationObject): ResponseObject {
  const [, response] = Object.entries(operation.responses ?? {}).find(([status]) => Number(status) < 300)!;
  return response as ResponseObject;
}

const pathParameters = (operation: OperationObject) => (operation.parameters ?? []).filter((parameter): parameter is ParameterObject => !isReference(parameter) && parameter.in === 'path');

describe('examples of the OpenAPI document', () => {
  it('cover every operation: 71 of them, each with a sample answer (a file, its type)', () => {
    expect(procedures).toHaveLength(71);
    for (const { name, operation, meta } of procedures) {
      if (meta.file) expect(successResponse(operation).content?.[meta.file], name).toBeDefined();
      else expect(exampleOf(successResponse(operation).content?.['application/json']?.schema), name).toBeDefined();
    }
  });

  it('each sample answer is what the operation’s output schema answers, unchanged (no field missing, none extra)', () => {
    for (const { name, operation, output } of procedures.filter((procedure) => !procedure.meta.file)) {
      const example = exampleOf(successResponse(operation).content?.['application/json']?.schema);
      const parsed = output.safeParse(example);
      expect(parsed.error, name).toBeUndefined();
      expect(parsed.data, name).toEqual(example);
    }
  });

  it('every request body and path parameter has a sample, and with them the operation’s input schema accepts the request', () => {
    let bodies = 0;
    for (const { name, operation, input } of procedures) {
      const parameters = Object.fromEntries(pathParameters(operation).map((parameter) => [parameter.name, exampleOf(parameter.schema as SchemaObject)]));
      for (const [parameter, value] of Object.entries(parameters)) expect(value, `${name} {${parameter}}`).toEqual(expect.any(String));
      const body = operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody.content['application/json']?.schema : undefined;
      const samples = body ? (((body as SchemaObject).examples as unknown[] | undefined) ?? []) : [{}];
      if (body) {
        bodies++;
        expect(samples.length, name).toBeGreaterThan(0);
      }
      for (const sample of samples) expect(input.safeParse({ ...(sample as object), ...parameters }).error, name).toBeUndefined();
    }
    expect(bodies).toBe(22);
  });

  it('every named object has a sample (Error aside: its examples are the error codes), valid against its schema', () => {
    const named = Object.entries(componentSchemas).filter(([name]) => name !== 'Error');
    expect(named.length).toBeGreaterThan(40);
    for (const [name, schema] of named) {
      const example = exampleOf(schema);
      expect(example, name).toBeDefined();
      const zodSchema = z.globalRegistry._idmap.get(name) as z.ZodType;
      const parsed = zodSchema.safeParse(example);
      expect(parsed.error, name).toBeUndefined();
      expect(parsed.data, name).toEqual(example);
    }
  });

  it('the checkout session body has one sample per mode, each accepted by the service', () => {
    const create = procedures.find((procedure) => procedure.name === 'POST /checkout/sessions')!;
    const body = (create.operation.requestBody as { content: Record<string, { schema: SchemaObject }> }).content['application/json']!.schema;
    const samples = body.examples as Record<string, unknown>[];
    expect(samples.map((sample) => ['price_id', 'line_items', 'amount'].filter((field) => field in sample))).toEqual([['price_id'], ['line_items'], ['amount']]);
    for (const sample of samples) {
      expect(create.input.safeParse(sample).error).toBeUndefined();
      expect(create.meta.documentedBody!.safeParse(sample).error).toBeUndefined();
    }
  });
});

describe('the example error', () => {
  const api = useTestApi();
  const store = useTestStore(api);

  it('is the answer to an amount sent as a string', async () => {
    const answer = await api.request('POST', '/api/v1/products', { key: store.key, body: { name: 'Ebook', amount: '1999' } });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(exampleOf(componentSchemas.Error));
  });
});
