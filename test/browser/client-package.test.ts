/**
 * The browser library as a merchant gets it: `npm pack` of packages/client (its own package),
 * installed into a scratch app in a temporary directory next to that app's own React, imported from
 * plain Node, type-checked under `moduleResolution: nodenext` and `bundler`, bundled by esbuild,
 * and run in Debian's Chromium against the real service (`npm start`): the secure form mounts with
 * no console error, the card goes to the frame, and the customer pays on the hosted page it
 * continues to.
 *
 * Offline: the tarball has no dependencies to fetch, and the app's React (with react-dom and
 * their types) is this repository's own, linked in as a merchant's install would place it.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as source from '@/packages/client';
import { chromiumAvailable, consoleErrors, launchChromium, newContext, startMerchantSite, stopStarted, type LaunchedBrowser } from '../support/browser';
import { callService, freePort, ROOT, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';

const run = promisify(execFile);
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
/** What the scratch app takes from this repository's node_modules: React and what it needs to build and type-check. */
const LINKED = ['react', 'react-dom', 'scheduler', '@types/react', '@types/react-dom', 'csstype'];

/** A merchant's page: a typed React app around the library's secure form. */
const APP = `
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { SecureCheckoutForm, ServiceProvider, TEST_CARDS, type ServiceError } from '@payments-service/client';

interface Config { publishableKey: string; apiBaseUrl: string; clientSecret: string; checkoutUrl: string }

function Checkout({ config }: { config: Config }) {
  const [failure, setFailure] = useState<ServiceError | null>(null);
  return (
    <ServiceProvider publishableKey={config.publishableKey} apiBaseUrl={config.apiBaseUrl}>
      <h1>Checkout</h1>
      <p>Test card: {TEST_CARDS.APPROVED}</p>
      <SecureCheckoutForm clientSecret={config.clientSecret} checkoutUrl={config.checkoutUrl} collectEmail onError={setFailure} />
      {failure && <p data-testid="failure">{failure.code}</p>}
    </ServiceProvider>
  );
}

const config = JSON.parse(document.getElementById('config')!.textContent!) as Config;
createRoot(document.getElementById('root')!).render(<StrictMode><Checkout config={config} /></StrictMode>);
`;

const TSCONFIGS = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
};

let scratch = '';
let port = 0;
let origin = '';
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let chromium: LaunchedBrowser;
let browser: Browser;
let merchant: Server;
let merchantOrigin = '';
let sk = '';
let pk = '';
let tarball = '';
let bundled = { code: '', metafile: { inputs: {}, outputs: {} } as Metafile };
let session: { id: string; client_secret: string; url: string };

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  scratch = await mkdtemp(path.join(tmpdir(), 'merchant-app-'));
  port = await freePort();
  origin = `http://localhost:${port}`;
  const storage = await serviceStorage('client-package');
  cleanupStorage = storage.cleanup;
  [service, chromium] = await Promise.all([startService(serviceEnv({ ...storage.env, PORT: String(port), AUTH_SECRET: 'client-package-auth-secret' })), launchChromium()]);
  browser = chromium.browser;
  sk = /^ {2}sk_test {2}(\S+)$/m.exec(service.output())![1]!;
  pk = /^ {2}pk_test {2}(\S+)$/m.exec(service.output())![1]!;
}, START_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await stopStarted({ chromium, service, merchant, cleanupStorage });
  await rm(scratch, { recursive: true, force: true });
}, 60_000);

describe('@payments-service/client, packed and installed into a merchant app', () => {
  it('npm pack builds it and packs the ESM bundle, its declarations and its manifest, nothing else', async () => {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: path.join(ROOT, 'packages/client'), maxBuffer: 16 * 1024 * 1024 });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')));
    tarball = path.join(scratch, packed.filename);
    expect(packed.name).toBe('@payments-service/client');
    const files = packed.files.map((file: { path: string }) => file.path).sort();
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files.filter((file: string) => !/^dist\/.+\.(js|d\.ts)$/.test(file))).toEqual(['package.json']);
  }, 180_000);

  it('installs offline with no dependency of its own: React stays the app’s (a peer), one copy', async () => {
    const app = path.join(scratch, 'app');
    await mkdir(app);
    await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'merchant-app', private: true, type: 'module', dependencies: { '@payments-service/client': `file:${tarball}` } }, null, 2));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--legacy-peer-deps', '--ignore-scripts'], { cwd: app });
    for (const name of LINKED) {
      await mkdir(path.dirname(path.join(app, 'node_modules', name)), { recursive: true });
      await symlink(path.join(ROOT, 'node_modules', name), path.join(app, 'node_modules', name), 'dir');
    }
    const installed = path.join(app, 'node_modules/@payments-service/client');
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies.react).toBe('>=18.2.0');
    expect((await readdir(installed)).sort()).toEqual(['dist', 'package.json']);
    await writeFile(path.join(app, 'app.tsx'), APP);
  }, 120_000);

  it('plain Node imports it from the app and finds every entry point of the source', async () => {
    const script = "const library = await import('@payments-service/client'); console.log(JSON.stringify(Object.keys(library).sort()));";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: path.join(scratch, 'app') });
    expect(JSON.parse(stdout)).toEqual(Object.keys(source).sort());
  });

  it.each(Object.keys(TSCONFIGS))(
    'type-checks under moduleResolution %s, its declarations included (skipLibCheck off)',
    async (resolution) => {
      const app = path.join(scratch, 'app');
      const tsconfig = `tsconfig.${resolution}.json`;
      await writeFile(
        path.join(app, tsconfig),
        JSON.stringify({
          compilerOptions: {
            ...TSCONFIGS[resolution as keyof typeof TSCONFIGS],
            target: 'es2022',
            lib: ['dom', 'es2022'],
            jsx: 'react-jsx',
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: [],
          },
          files: ['app.tsx'],
        }),
      );
      const checked = await run(process.execPath, [TSC, '-p', tsconfig], { cwd: app }).then(
        () => '',
        (error: { stdout: string }) => error.stdout,
      );
      expect(checked).toBe('');
    },
    120_000,
  );

  it('esbuild bundles the app with one React: the library imports the app’s', async () => {
    const app = path.join(scratch, 'app');
    const result = await build({
      entryPoints: [path.join(app, 'app.tsx')],
      absWorkingDir: app,
      bundle: true,
      format: 'iife',
      platform: 'browser',
      jsx: 'automatic',
      minify: true,
      define: { 'process.env.NODE_ENV': '"production"' },
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    bundled = { code: result.outputFiles[0]!.text, metafile: result.metafile };
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => /(^|\/)react\/index\.js$/.test(input))).toHaveLength(1);
    expect(inputs.filter((input) => /react\.production\.js$/.test(input))).toHaveLength(1);
    expect(inputs.some((input) => input.includes('@payments-service/client/dist/index.js'))).toBe(true);
    expect(inputs.filter((input) => input.includes('@payments-service/client/node_modules'))).toEqual([]);
  }, 120_000);

  it('in Chromium against the service: mounts with no console error, the card stays in the frame, and the customer pays on the hosted page it continues to', async () => {
    const listed = await callService(origin, sk, 'GET', '/api/v1/products?mode=one_time&limit=1');
    ({ server: merchant, origin: merchantOrigin } = await startMerchantSite((req, res) => {
      const url = new URL(req.url ?? '/', merchantOrigin);
      if (url.pathname === '/app.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        return res.end(bundled.code);
      }
      if (url.pathname === '/checkout') {
        const config = JSON.stringify({ publishableKey: pk, apiBaseUrl: origin, clientSecret: session.client_secret, checkoutUrl: session.url }).replace(/</g, '\\u003c');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          `<!doctype html><html lang="en"><title>Merchant checkout</title><link rel="icon" href="data:,"><main id="root"></main><script type="application/json" id="config">${config}</script><script src="/app.js"></script></html>`,
        );
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(`<!doctype html><html lang="en"><title>Thanks</title><h1>Thank you</h1><p>${url.search.replace(/[<>&"]/g, '')}</p></html>`);
    }));
    const created = await callService(origin, sk, 'POST', '/api/v1/checkout/sessions', {
      price_id: listed.body.data[0].price_id,
      success_url: `${merchantOrigin}/thanks`,
      cancel_url: `${merchantOrigin}/cart`,
    });
    expect(created.status).toBe(201);
    session = created.body;

    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = consoleErrors(page);
    await page.goto(`${merchantOrigin}/checkout`);
    expect(await page.getByRole('heading', { name: 'Checkout' }).count()).toBe(1);

    const frame = page.frameLocator('iframe[title="Secure card payment"]');
    await expect.poll(() => frame.getByRole('button', { name: 'Pay' }).isEnabled(), { timeout: 20_000 }).toBe(true);
    // Mounted, the frame loaded and ready: not one console error, hooks and all (a second React throws here).
    expect(problems).toEqual([]);
    await frame.getByLabel('Email').fill('packed-buyer@example.com');
    await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
    await frame.getByLabel('Expiry').fill('12/34');
    await frame.getByLabel('CVC').fill('123');
    await frame.getByRole('button', { name: 'Pay' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 }).toContain('3-D Secure');
    expect(await page.getByTestId('failure').textContent()).toBe('three_d_secure_required');
    // The confirm's documented answer, 400 three_d_secure_required, is all the browser reports.
    expect(problems).toEqual([`console: Failed to load resource: the server responded with a status of 400 (Bad Request) (${origin}/api/v1/checkout/sessions/${session.id}/confirm)`]);

    await Promise.all([page.waitForURL(`${origin}/checkout/${session.id}?**`), page.getByRole('button', { name: 'Continue on the secure payment page' }).click()]);
    await page.getByLabel('Email').fill('packed-buyer@example.com');
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await Promise.all([page.waitForURL(`${merchantOrigin}/thanks?session_id=${session.id}`), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(await page.getByRole('heading', { name: 'Thank you' }).count()).toBe(1);

    const paid = await callService(origin, sk, 'GET', `/api/v1/checkout/sessions/${session.id}`);
    expect(paid.body).toMatchObject({ status: 'complete', payment_status: 'paid', amount_total: listed.body.data[0].amount });
    await context.close();
  }, 120_000);
});
