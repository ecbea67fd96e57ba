import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_FRAME_SCRIPT } from '@/app/embed/card/card-frame-script';
import * as source from '@/packages/client';
import { buildLibrary, bundleFrameScript, CLIENT_DIR, writeDeclarations, writeIfChanged } from '@/packages/client/scripts/bundle';

/** The package entry and the build outputs. Node environment: esbuild and tsc run here. */
const ROOT = path.resolve(CLIENT_DIR, '../..');
let outDir = '';

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), 'client-build-'));
});
afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

describe('client build', () => {
  it('the card frame’s script is the current bundle of packages/client/frame/card-frame.ts (run npm run client:build)', async () => {
    expect(CARD_FRAME_SCRIPT).toBe(await bundleFrameScript());
  });

  it('a generated source keeps its time when rebuilt to the same text, so npm start does not rebuild after npm pack', async () => {
    const file = path.join(outDir, 'generated.ts');
    await writeFile(file, 'export const A = 1;\n');
    const past = new Date('2026-01-01T00:00:00Z');
    await utimes(file, past, past);
    await writeIfChanged(file, 'export const A = 1;\n');
    expect((await stat(file)).mtimeMs).toBe(past.getTime());
    await writeIfChanged(file, 'export const A = 2;\n');
    expect((await stat(file)).mtimeMs).toBeGreaterThan(past.getTime());
    expect(await readFile(file, 'utf8')).toBe('export const A = 2;\n');
  });

  it('packages/client/package.json publishes @payments-service/client: ESM with its types, tree-shakeable, React a peer dependency only', async () => {
    const manifest = JSON.parse(await readFile(path.join(CLIENT_DIR, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@payments-service/client', type: 'module', sideEffects: false, files: ['dist'], license: 'MIT' });
    expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', import: './dist/index.js' }, './package.json': './package.json' });
    expect(manifest.peerDependencies).toEqual({ react: '>=18.2.0', '@types/react': '>=18.2.0' });
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.scripts).toEqual({ prepack: 'cd ../.. && npm run --silent client:build' });
    // The service's package offers neither library: each is a workspace package of its own.
    const root = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
    expect(Object.keys(root.exports)).toEqual(['./trpc']);
    expect(root.peerDependencies).toBeUndefined();
    expect(root.scripts['client:build']).toBe('tsx packages/client/scripts/build.ts');
    expect(root.scripts['client:pack']).toBe('npm pack ./packages/client');
  });

  it('the ESM bundle exports every name of the public API, imports React instead of bundling it, and drops what a page does not use', async () => {
    const bundle = path.join(outDir, 'index.js');
    await buildLibrary(bundle);
    const code = await readFile(bundle, 'utf8');
    expect(code.startsWith("'use client';")).toBe(true);
    expect(code).toMatch(/from "react"/);
    const exported = Object.keys(await import(bundle)).sort();
    expect(exported).toEqual(Object.keys(source).sort());
    expect(exported).toEqual(
      [
        'CheckoutForm',
        'DEFAULT_API_BASE_URL',
        'SecureCheckoutForm',
        'Service',
        'ServiceProvider',
        'TEST_CARDS',
        'formatCardNumber',
        'isSafeRedirectUrl',
        'loadService',
        'luhnCheck',
        'parseExpiry',
        'sessionIdFromClientSecret',
        'useCheckout',
        'useService',
        'validateCard',
      ].sort(),
    );
    // A page importing one helper gets that helper, none of the forms.
    const page = path.join(outDir, 'page.js');
    await writeFile(page, `import { luhnCheck } from ${JSON.stringify(bundle)};\nconsole.log(luhnCheck('4242424242424242'));\n`);
    const shaken = await build({ entryPoints: [page], bundle: true, minify: true, format: 'esm', write: false, external: ['react', 'react/jsx-runtime'] });
    // esbuild keeps the import statements of externals; all code but luhnCheck's is gone.
    const pageCode = shaken.outputFiles[0]!.text.replace(/import\{[^}]*\}from"react(\/jsx-runtime)?";/g, '');
    expect(pageCode).not.toMatch(/Secure card payment|Continue on the secure payment page|createContext|postMessage/);
    expect(pageCode).toContain('console.log(');
    expect(pageCode.length).toBeLessThan(400);
  });

  it('declarations type the package entry, every relative import spelled as Node resolves it (`./card.js`)', async () => {
    await writeDeclarations(outDir);
    const declarations = await readFile(path.join(outDir, 'index.d.ts'), 'utf8');
    for (const name of ['loadService', 'SecureCheckoutForm', 'ServiceError', 'ConfirmResult', 'TEST_CARDS']) expect(declarations).toContain(name);
    expect(declarations).toContain("export { SecureCheckoutForm } from './react/secure-checkout-form.js';");
    expect(await readFile(path.join(outDir, 'service.d.ts'), 'utf8')).toContain('confirmCheckoutSession(params: ConfirmParams): Promise<ConfirmResult>');
    expect(await readFile(path.join(outDir, 'react/use-checkout.d.ts'), 'utf8')).toContain("import type { ServiceError } from '../errors.js';");
    for (const file of (await readdir(outDir, { recursive: true })).filter((name) => name.endsWith('.d.ts'))) {
      const text = await readFile(path.join(outDir, file), 'utf8');
      expect(
        [...text.matchAll(/(?:from\s+|import\()'(\.[^']*)'/g)].map((match) => match[1]).filter((specifier) => !specifier!.endsWith('.js')),
        file,
      ).toEqual([]);
    }
  }, 120_000);
});
