import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * `import type { AppRouter } from 'payments-service/trpc'` type-checks a real client, under both
 * module resolutions a consumer may use. The types are written from the current router first,
 * as `npm install` writes them.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const CONSUMER = path.join(import.meta.dirname, 'consumer', 'consumer.ts');
const run = promisify(execFile);

async function typeCheck(dir: string, module: 'esnext' | 'nodenext', moduleResolution: 'bundler' | 'nodenext') {
  const tsconfig = path.join(dir, `tsconfig.${moduleResolution}.json`);
  const compilerOptions = { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2023', 'ESNext.Disposable', 'DOM'], module, moduleResolution, types: [] };
  await writeFile(tsconfig, JSON.stringify({ compilerOptions, files: [CONSUMER] }));
  return run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { cwd: ROOT }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

describe('the payments-service/trpc export', () => {
  it('is types only: nothing of it runs in the importer', async () => {
    const packageJson = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
    expect(packageJson.exports['./trpc']).toEqual({ types: './types/trpc.d.ts' });
  });

  // The consumer's `@ts-expect-error` on a wrong input fails the check if AppRouter were `any`.
  it('types a createTRPCClient<AppRouter> under moduleResolution bundler and nodenext, and refuses a wrong input', async () => {
    await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/write-trpc-types.ts')], { cwd: ROOT });
    const dir = await mkdtemp(path.join(tmpdir(), 'trpc-consumer-'));
    try {
      expect(await typeCheck(dir, 'esnext', 'bundler')).toEqual({ code: 0, stdout: '' });
      expect(await typeCheck(dir, 'nodenext', 'nodenext')).toEqual({ code: 0, stdout: '' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
