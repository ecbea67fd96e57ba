import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_FRAME_SCRIPT } from '@/app/embed/card/card-frame-script';
import * as source from '@/client';
import { buildLibrary, bundleFrameScript, CLIENT_DIR } from '@/client/scripts/bundle';

/** The package entry and the build outputs. Node environment: esbuild and tsc run here. */
const ROOT = path.resolve(CLIENT_DIR, '..');
let outDir = '';

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), 'client-build-'));
});
afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

describe('client build', () => {
  it('the card frame’s script is the current bundle of client/frame/card-frame.ts (run npm run client:build)', async () => {
    expect(CARD_FRAME_SCRIPT).toBe(await bundleFrameScript());
  });

  it('package.json publishes ./client (types + ESM), tree-shakeable, React as a peer', async () => {
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.exports['./client']).toEqual({ types: './client/dist/index.d.ts', import: './client/dist/index.js' });
    // Only stylesheets (imported for their effect by the app's layouts) have side effects.
    expect(manifest.sideEffects).toEqual(['*.css']);
    expect(manifest.peerDependencies.react).toBeDefined();
    expect(manifest.scripts['client:build']).toBe('tsx client/scripts/build.ts');
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

  it('declarations type the ./client entry (tsc emitDeclarationOnly with client/tsconfig.json)', async () => {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(CLIENT_DIR, 'tsconfig.json'), '--outDir', outDir]);
    const declarations = await readFile(path.join(outDir, 'index.d.ts'), 'utf8');
    for (const name of ['loadService', 'SecureCheckoutForm', 'ServiceError', 'ConfirmResult', 'TEST_CARDS']) expect(declarations).toContain(name);
    expect(await readFile(path.join(outDir, 'service.d.ts'), 'utf8')).toContain('confirmCheckoutSession(params: ConfirmParams): Promise<ConfirmResult>');
  }, 120_000);
});
