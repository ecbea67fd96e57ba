import { describe, expect, it } from 'vitest';
import { forEachOpenApiProcedure, normalizePath, type OpenApiProcedureRecord } from 'trpc-to-openapi';
import { buildOpenApiDocument } from '@/server/openapi/document';
import { appRouter } from '@/server/router';

/** A procedure's tRPC path is its OpenAPI operationId with `.` for `-`. */
describe('tRPC paths and OpenAPI operations', () => {
  it('every procedure of the app router is a REST operation whose operationId is its path with `-` for `.`', () => {
    const document = buildOpenApiDocument('http://localhost');
    const operationIds = new Map<string, string>();
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item as Record<string, { operationId?: string }>)) {
        if (operation?.operationId) operationIds.set(`${method.toUpperCase()} ${path}`, operation.operationId);
      }
    }
    const procedures = Object.keys(appRouter._def.procedures);
    const checked: string[] = [];
    forEachOpenApiProcedure(appRouter._def.procedures as OpenApiProcedureRecord, ({ path, meta }) => {
      const operationId = operationIds.get(`${meta.openapi.method} ${normalizePath(meta.openapi.path)}`);
      expect(operationId, path).toBeDefined();
      expect(operationId!.replace('-', '.'), path).toBe(path);
      checked.push(path);
    });
    expect(checked.sort()).toEqual(procedures.sort());
    expect(checked).toContain('products.list');
  });
});
