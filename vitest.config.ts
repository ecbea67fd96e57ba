import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    testTimeout: 30_000,
    // expect.poll's own default is 1 s, too short for a browser on a loaded 2-core CI machine.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
    // Each file has its own database; two workers fit this 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
  },
});
