import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import ProcessTestsEarly from './test/support/sequencer';

/**
 * Files that need a fresh module graph: they replace modules with `vi.mock` (a module another file
 * imported first would stay unmocked), or start processes and browsers of their own.
 */
const ISOLATED = [
  'test/browser/**/*.test.ts',
  'test/e2e/**/*.test.ts',
  ...readdirSync(path.join(import.meta.dirname, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.test\.tsx?$/.test(file) && /\bvi\.(mock|doMock)\(/.test(readFileSync(path.join(import.meta.dirname, 'test', file), 'utf8')))
    .map((file) => path.posix.join('test', file.split(path.sep).join('/'))),
];
const INCLUDE = ['test/**/*.test.ts', 'test/**/*.test.tsx'];
// Several processes on one database: the chaos test runs when the suite runs on PostgreSQL.
const EXCLUDE = process.env.DATABASE_URL ? configDefaults.exclude : [...configDefaults.exclude, 'test/e2e/chaos.test.ts'];

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
      { extends: true, test: { name: 'shared-modules', include: INCLUDE, exclude: [...EXCLUDE, ...ISOLATED], isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, exclude: EXCLUDE } },
    ],
  },
});
