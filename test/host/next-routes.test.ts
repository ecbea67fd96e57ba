import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiPathMatcher, createRouteTemplates } from '@/server/host/next-routes';

/**
 * `npm start` (scripts/serve.ts) sends /api/v1 paths straight to the API handler unless a route
 * file of their own under app/api/v1 serves them, as `next dev` does: one table, the route files.
 */
let appDir: string;

async function addRoute(folder: string, file = 'route.ts') {
  await mkdir(path.join(appDir, folder), { recursive: true });
  await writeFile(path.join(appDir, folder, file), 'export function GET() {}\n');
}

beforeAll(async () => {
  appDir = await mkdtemp(path.join(tmpdir(), 'next-routes-'));
  await addRoute('api/v1/[...path]');
  await addRoute('api/v1/openapi.json');
  await addRoute('api/v1/widgets/[id]/refresh');
  await addRoute('api/v1/(internal)/health', 'route.js');
  await addRoute('api/v1/files/[...name]');
  await addRoute('api/v1/_drafts/preview');
  await addRoute('api/v1/products/[id]', 'helpers.ts');
  await addRoute('api/admin/trpc/[trpc]');
  await addRoute('', 'page.tsx');
  await addRoute('checkout/[id]', 'page.tsx');
  await addRoute('checkout/[id]/pay');
  await addRoute('checkout/receipt', 'page.tsx');
  await addRoute('(shop)/cart', 'page.tsx');
});

afterAll(() => rm(appDir, { recursive: true, force: true }));

describe('which /api/v1 and /api/trpc paths the API handler serves', () => {
  it('a new route file under app/api/v1 is served by Next, not the handler, without listing it anywhere', () => {
    const isApiPath = createApiPathMatcher(appDir);
    for (const own of ['/api/v1/openapi.json', '/api/v1/widgets/w_1/refresh', '/api/v1/health', '/api/v1/files/a', '/api/v1/files/a/b']) expect(isApiPath(own), own).toBe(false);
    for (const handled of ['/api/v1/products', '/api/v1/products/prod_1', '/api/v1/widgets/w_1', '/api/v1/widgets/w_1/refresh/x', '/api/v1/openapi.jsonx', '/api/v1/files', '/api/v1/_drafts/preview'])
      expect(isApiPath(handled), handled).toBe(true);
    for (const elsewhere of ['/api/admin/trpc/store.create', '/checkout/cs_test_1', '/api/v10/products', '/api/trpcx/products.list']) expect(isApiPath(elsewhere), elsewhere).toBe(false);
  });

  it('every /api/trpc path is the handler’s, batches included', () => {
    const isApiPath = createApiPathMatcher(appDir);
    for (const handled of ['/api/trpc', '/api/trpc/products.list', '/api/trpc/products.list,products.retrieve']) expect(isApiPath(handled), handled).toBe(true);
  });

  it('the route files of this app: the OpenAPI document and the confirm endpoint are Next’s, the rest is the handler’s', () => {
    const isApiPath = createApiPathMatcher(path.resolve(import.meta.dirname, '../../app'));
    expect(isApiPath('/api/v1/openapi.json')).toBe(false);
    expect(isApiPath('/api/v1/checkout/sessions/cs_test_1/confirm')).toBe(false);
    for (const handled of ['/api/v1/products', '/api/v1/checkout/sessions', '/api/v1/checkout/sessions/cs_test_1', '/api/v1/nothing-here']) expect(isApiPath(handled), handled).toBe(true);
  });
});

describe('route templates of the paths Next serves, for logs and metrics', () => {
  it('names a page or route file by its folders, ids as {name}, static folders before dynamic ones, and one label for the rest', () => {
    const routeOf = createRouteTemplates(appDir);
    expect(routeOf('/')).toBe('/');
    expect(routeOf('/checkout/cs_test_123')).toBe('/checkout/{id}');
    expect(routeOf('/checkout/cs_test_123/pay')).toBe('/checkout/{id}/pay');
    expect(routeOf('/checkout/receipt')).toBe('/checkout/receipt');
    expect(routeOf('/cart')).toBe('/cart');
    expect(routeOf('/api/v1/files/a/b')).toBe('/api/v1/files/{name}');
    expect(routeOf('/api/v1/health')).toBe('/api/v1/health');
    expect(routeOf('/api/v1/products/prod_1')).toBe('/api/v1/{path}');
    expect(routeOf('/_next/static/chunks/app-123.js')).toBe('/_next/{asset}');
    for (const unknown of ['/checkout/cs_1/pay/x', '/no/such/page', '/checkout']) expect(routeOf(unknown), unknown).toBe('/{unmatched}');
  });
});
