import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import ProcessTestsEarly from './test/support/sequencer';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Several processes on one database: the chaos test runs when the suite runs on PostgreSQL.
    exclude: process.env.DATABASE_URL ? configDefaults.exclude : [...configDefaults.exclude, 'test/e2e/chaos.test.ts'],
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
  },
});
