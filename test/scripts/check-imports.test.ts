import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkImports, findCycles, findLayerViolations, layerOf, type ImportGraph } from '@/scripts/check-imports';

const roots: string[] = [];

/** A throwaway repository holding the given files. */
function repository(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'check-imports-'));
  roots.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('import graph check', () => {
  it('the repository itself has no cycle and no upward import', () => {
    const result = checkImports(path.resolve(import.meta.dirname, '../..'));
    expect(result.report).toMatch(/no cycle, no upward import/);
    expect(result.ok).toBe(true);
  });

  it('a cycle through relative and @/ imports is reported with its path, type-only imports included', () => {
    const root = repository({
      'server/orders/service.ts': "import { b } from '@/server/refunds/service';\nexport const a = b;\n",
      'server/refunds/service.ts': "import type { Order } from '../orders/types';\nexport const b = 1;\n",
      'server/orders/types.ts': "import { a } from './service';\nexport type Order = typeof a;\n",
    });
    const result = checkImports(root);
    expect(result.ok).toBe(false);
    expect(result.report).toContain('cycle: server/orders/service.ts → server/refunds/service.ts → server/orders/types.ts → server/orders/service.ts');
  });

  it('an import from a lower layer to a higher one is reported; downward imports are not', () => {
    const root = repository({
      'server/kit/links.ts': "import { checkoutRouter } from '../checkout/router';\nexport const x = checkoutRouter;\n",
      'server/checkout/router.ts': "import { ApiError } from '../errors';\nexport const checkoutRouter = ApiError;\n",
      'server/errors.ts': 'export class ApiError {}\n',
      'app/page.tsx': "import { checkoutRouter } from '@/server/checkout/router';\nexport default checkoutRouter;\n",
    });
    const result = checkImports(root);
    expect(result.ok).toBe(false);
    expect(result.report.split('\n').filter((line) => line.startsWith('upward import'))).toEqual([
      'upward import: server/kit/links.ts (kit) imports server/checkout/router.ts (domains)',
    ]);
  });

  it('the most specific layer path wins', () => {
    expect(layerOf('server/kit/scope.ts')).toBeLessThan(layerOf('server/orders/service.ts'));
    expect(layerOf('server/http/api-handler.ts')).toBeLessThan(layerOf('server/router.ts'));
    expect(layerOf('server/router.ts')).toBeLessThan(layerOf('proxy.ts'));
  });

  it('a self-import is a cycle; an acyclic graph has none', () => {
    const graph: ImportGraph = new Map([
      ['server/a.ts', ['server/a.ts']],
      ['server/b.ts', ['server/errors.ts']],
      ['server/errors.ts', []],
    ]);
    expect(findCycles(graph)).toEqual([['server/a.ts', 'server/a.ts']]);
    expect(findLayerViolations(graph).violations).toEqual([]);
  });
});
