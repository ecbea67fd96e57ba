import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import ProcessTestsEarly from './test/support/sequencer';

const TEST_FILES = readdirSync(path.join(import.meta.dirname, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => /\.test\.tsx?$/.test(file))
  .map((file) => path.posix.join('test', file.split(path.sep).join('/')));

/** Files that drive Debian's Chromium against `npm start`. */
const BROWSER = ['test/browser/**/*.test.ts'];
/**
 * Files that need a fresh module graph: they replace modules with `vi.mock` (a module another file
 * imported first would stay unmocked), start processes of their own, or change Node's own classes
 * for the process (the page contexts' tracking).
 */
const ISOLATED = ['test/e2e/**/*.test.ts', 'test/host/page-contexts.test.ts', ...TEST_FILES.filter((file) => /\bvi\.(mock|doMock)\(/.test(readFileSync(path.join(import.meta.dirname, file), 'utf8')))];
const INCLUDE = ['test/**/*.test.ts', 'test/**/*.test.tsx'];
const onPostgres = Boolean(process.env.DATABASE_URL);
// On PostgreSQL only: the chaos test (several processes on one database) and postgres.js's own statements.
const EXCLUDE = onPostgres ? configDefaults.exclude : [...configDefaults.exclude, 'test/e2e/chaos.test.ts', 'test/db/postgres-statements.test.ts'];
/**
 * The pages in Chromium are served by the same services whichever database they use, and those
 * services are tested on both. So the browser files run once: with the embedded default (`npm test`
 * without DATABASE_URL, as CI's first run), and on PostgreSQL only when asked (`npm run test:browser`).
 */
const RUN_BROWSER = !onPostgres || process.env.BROWSER_TESTS === '1';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    environment: 'node',
    // next-auth imports `next/server` without the extension Node's ESM resolution needs: let Vite resolve it.
    server: { deps: { inline: ['next-auth'] } },
    globalSetup: ['test/support/global-setup.ts'],
    sequence: { sequencer: ProcessTestsEarly },
    // A browser test takes a few seconds on a quiet machine and several times that beside another suite's
    // load; a step that hangs fails on its own at 20 s (test/support/browser.ts).
    testTimeout: 60_000,
    // expect.poll's own default is 1 s, too short for a browser on a loaded 2-core CI machine.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
    // Each file has its own database; two workers fit this 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      // The service's modules are imported once per worker instead of once per file: importing them was
      // a fifth of the suite's time. Every file still opens its own database.
      { extends: true, test: { name: 'shared-modules', include: INCLUDE, exclude: [...EXCLUDE, ...ISOLATED, ...BROWSER], isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, exclude: EXCLUDE } },
      ...(RUN_BROWSER ? [{ extends: true as const, test: { name: 'browser', include: BROWSER, exclude: EXCLUDE } }] : []),
    ],
  },
});
