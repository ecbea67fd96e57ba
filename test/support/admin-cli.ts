import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { createAdminHandler } from '@/server/admin/handler';
import type { Config } from '@/server/config';
import { randomBase62 } from '@/server/ids';
import { runAdmin } from '../../scripts/admin-cli';
import { serveFetchHandler, type TestApi } from './server';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX_CLI = createRequire(import.meta.url).resolve('tsx/cli');

/** What a run must not inherit from the test's own environment: the operator's settings are the run's own. */
function inheritedEnv(): Record<string, string | undefined> {
  const { ADMIN_TOKEN: _token, SERVICE_URL: _url, DATA_DIR: _dir, PORT: _port, ...inherited } = process.env;
  return inherited;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/**
 * The CLI's command line run in this process (scripts/admin-cli.ts), its output and exit code
 * captured as a process's would be: many command lines without a process start each. The
 * process itself (`npm run admin`, `tsx scripts/admin.ts`) is started by runNpm and runCliProcess.
 */
async function runInProcess(args: string[], env: Record<string, string | undefined>, cwd: string): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, { env, cwd, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

/**
 * The admin API of `api`'s services served on a port of its own for the file, with a token, and
 * the operator's CLI run against it: `runCli` the command line in this process, `runCliProcess`
 * what `npm run admin -- …` runs (`tsx scripts/admin.ts …`, in the repository or in `cwd`) as a
 * process, `runNpm` npm itself as an operator types it. `configure` gives this admin API a configuration of its own (a setting left unset).
 */
export function useAdminCli(api: TestApi, configure: (config: Config) => Config = (config) => config) {
  const token = `adm_${randomBase62(40)}`;
  let url = '';
  let close: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const server = await serveFetchHandler(createAdminHandler({ ...api.services, config: configure(api.services.config) }, token));
    url = server.baseUrl;
    close = server.close;
  });
  afterAll(() => close());
  const reach = () => ({ SERVICE_URL: url, ADMIN_TOKEN: token });
  return {
    token,
    url: () => url,
    runCli: (args: string[], env: Record<string, string | undefined> = reach(), cwd = ROOT) => runInProcess(args, { ...inheritedEnv(), ...env }, cwd),
    runCliProcess: (args: string[], env: Record<string, string | undefined> = reach(), cwd = ROOT) =>
      run(process.execPath, [TSX_CLI, path.join(ROOT, 'scripts/admin.ts'), ...args], { ...inheritedEnv(), ...env } as NodeJS.ProcessEnv, cwd),
    runNpm: (args: string[], env: Record<string, string | undefined> = reach()) => {
      // Whatever npm put in the environment of the run that started these tests (`npm test`) is not the operator's.
      const own = Object.fromEntries(Object.entries(inheritedEnv()).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
      return run('npm', args, { ...own, ...env } as NodeJS.ProcessEnv);
    },
  };
}

/** Success: exit 0, nothing on stderr, exactly one JSON object on stdout. */
export function expectJson(result: CliResult): any {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const parsed = JSON.parse(result.stdout);
  expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
  return parsed;
}

/** Failure: the given exit code, nothing on stdout, the reason on stderr. */
export function expectFailure(result: CliResult, code: number, message: RegExp) {
  expect(result.stdout).toBe('');
  expect(result.code).toBe(code);
  expect(result.stderr).toMatch(message);
}
