import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkImports, DOMAINS, findCycles, findLayerViolations, folderOf, layerOf, type ImportGraph } from '@/scripts/check-imports';

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
    expect(result.report).toMatch(/no folder cycle, no undeclared domain import/);
    expect(result.ok).toBe(true);
  });

  it('a folder cycle with no file cycle is reported, with the imports that make it', () => {
    const root = repository({
      'server/kit/links.ts': "import { ApiError } from '../errors';\nexport const link = ApiError;\n",
      'server/kit/bundles.ts': 'export const mark = 1;\n',
      'server/errors.ts': "import { mark } from './kit/bundles';\nexport class ApiError {}\nexport const marked = mark;\n",
    });
    const result = checkImports(root);
    expect(result.ok).toBe(false);
    expect(result.report.split('\n').filter((line) => /^(cycle|upward import|folder cycle)/.test(line))).toEqual([
      'folder cycle: server/errors.ts → server/kit/ → server/errors.ts (server/errors.ts imports server/kit/bundles.ts; server/kit/links.ts imports server/errors.ts)',
    ]);
  });

  it('domain folders importing each other: the undeclared import and the folder cycle are reported', () => {
    const root = repository({
      'server/orders/service.ts': "import { refundView } from '../refunds/view';\nexport const order = refundView;\n",
      'server/refunds/view.ts': 'export const refundView = 1;\n',
      'server/refunds/service.ts': "import { order } from '@/server/orders/service';\nexport const refund = order;\n",
    });
    const result = checkImports(root, { orders: [], refunds: ['orders'] });
    expect(result.ok).toBe(false);
    const lines = result.report.split('\n');
    expect(lines).toContain('undeclared domain import: server/orders/ imports server/refunds/ (server/orders/service.ts imports server/refunds/view.ts); orders may import no domain');
    expect(lines.filter((line) => line.startsWith('folder cycle'))).toEqual([
      'folder cycle: server/orders/ → server/refunds/ → server/orders/ (server/orders/service.ts imports server/refunds/view.ts; server/refunds/service.ts imports server/orders/service.ts)',
    ]);
    expect(lines.filter((line) => line.startsWith('cycle'))).toEqual([]);
  });

  it('an import between domains the map does not list fails without any cycle; a declared one passes', () => {
    const files = {
      'server/checkout/service.ts': "import { getOrder } from '../orders/service';\nexport const session = getOrder;\n",
      'server/orders/service.ts': 'export const getOrder = 1;\n',
    };
    const declared = checkImports(repository(files), { orders: [], checkout: ['orders'] });
    expect(declared.ok).toBe(true);
    const undeclared = checkImports(repository(files), { orders: [], checkout: [] });
    expect(undeclared.ok).toBe(false);
    expect(undeclared.report).toContain(
      'undeclared domain import: server/checkout/ imports server/orders/ (server/checkout/service.ts imports server/orders/service.ts); checkout may import no domain',
    );
    const unknown = checkImports(repository(files), { orders: [] });
    expect(unknown.report).toContain('domain without an entry: server/checkout/ (add it to DOMAINS in scripts/check-imports.ts)');
  });

  it('the domain map lists for each domain only domains above it', () => {
    const order = Object.keys(DOMAINS);
    for (const [domain, allowed] of Object.entries(DOMAINS)) for (const lower of allowed) expect(order.indexOf(lower), `${domain} → ${lower}`).toBeLessThan(order.indexOf(domain));
    const result = checkImports(repository({ 'server/orders/service.ts': 'export const a = 1;\n' }), { orders: ['refunds'], refunds: ['orders'] });
    expect(result.ok).toBe(false);
    expect(result.report).toContain('domain map: orders lists refunds, which is not a domain above it in DOMAINS');
  });

  it('the command, given a root, exits non-zero on a folder cycle and names the folders', () => {
    const root = repository({
      'server/config.ts': "import { DEFAULT_LEASE_MS } from './kit/lease';\nexport const lease = DEFAULT_LEASE_MS;\n",
      'server/kit/lease.ts': 'export const DEFAULT_LEASE_MS = 60_000;\n',
      'server/kit/links.ts': "import { lease } from '../config';\nexport const link = lease;\n",
    });
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, '../../scripts/check-imports.ts'), root], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('folder cycle: server/config.ts → server/kit/ → server/config.ts');
  });

  it('a folder is server/<folder>/, or the file itself at the top of server/', () => {
    expect(folderOf('server/checkout/hosted/page.ts')).toBe('server/checkout/');
    expect(folderOf('server/errors.ts')).toBe('server/errors.ts');
    expect(folderOf('app/page.tsx')).toBeUndefined();
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
    expect(result.report.split('\n').filter((line) => line.startsWith('upward import'))).toEqual(['upward import: server/kit/links.ts (kit) imports server/checkout/router.ts (domains)']);
  });

  it('the most specific layer path wins', () => {
    expect(layerOf('server/kit/scope.ts')).toBeLessThan(layerOf('server/orders/service.ts'));
    expect(layerOf('server/http/api-handler.ts')).toBeLessThan(layerOf('server/router.ts'));
    expect(layerOf('server/orders/service.ts')).toBeLessThan(layerOf('server/host/front.ts'));
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
