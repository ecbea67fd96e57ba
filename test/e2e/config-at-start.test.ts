import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EU_MEMBER_STATES } from '@/server/kit/countries';
import { freePort, groupAlive, ROOT, serviceEnv, startWorker, stopWorker, type WorkerProcess } from '../support/production-server';

/**
 * `npm start` and `npm run worker` read their configuration first: a malformed TAX_RATES_FILE
 * (or another setting they cannot run with) stops them with exit code 1 and one line on stderr
 * naming what to fix, before any build, lock, migration or database connection.
 */
const UNREACHABLE_DATABASE = 'postgres://postgres@127.0.0.1:2/unreachable';

let dir = '';
/** The shipped form, a standard row per member state, with row 12's rate typed with a letter O. */
let malformedCsv = '';
/** A .json table without Malta's standard rate. */
let withoutMalta = '';
let validJson = '';
const running: WorkerProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'config-at-start-'));
  const rows = EU_MEMBER_STATES.map((country) => ({ country, category: 'standard', rate: '20', valid_from: '2020-01-01' }));
  malformedCsv = path.join(dir, 'rates.csv');
  await writeFile(malformedCsv, ['country,category,rate,valid_from', ...rows.map((row, index) => [row.country, row.category, index === 11 ? '2O' : row.rate, row.valid_from].join(','))].join('\n'));
  withoutMalta = path.join(dir, 'without-malta.json');
  await writeFile(withoutMalta, JSON.stringify(rows.filter((row) => row.country !== 'MT')));
  validJson = path.join(dir, 'rates.json');
  await writeFile(validJson, JSON.stringify(rows));
});

afterAll(async () => {
  for (const worker of running) if (groupAlive(worker.child.pid!)) process.kill(-worker.child.pid!, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** `npm <args>` in its own process group, to its exit: exit code, stdout and stderr apart. */
function runToExit(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', args, { cwd: ROOT, env: serviceEnv(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const runStart = (env: Record<string, string>) => runToExit(['start'], env);
const runWorker = (env: Record<string, string>) => runToExit(['run', 'worker'], env);

describe('npm start with a setting it cannot run with', { timeout: 120_000 }, () => {
  it('a malformed TAX_RATES_FILE: exit 1, the row on one stderr line, before any build, lock or database', async () => {
    const dataDir = path.join(dir, 'start-data');
    const result = await runStart({ TAX_RATES_FILE: malformedCsv, PORT: String(await freePort()), DATA_DIR: dataDir });
    expect(result.stderr).toBe('TAX_RATES_FILE row 12: rate "2O" is not a number 0–100\n');
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('Building (');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('a member state without its standard rate, and a setting of the environment, each one line', async () => {
    const port = String(await freePort());
    const dataDir = path.join(dir, 'start-data');
    const malta = await runStart({ TAX_RATES_FILE: withoutMalta, PORT: port, DATA_DIR: dataDir });
    expect([malta.code, malta.stderr]).toEqual([1, 'TAX_RATES_FILE: member state MT has no standard rate\n']);
    const iban = await runStart({ OPERATOR_IBAN: 'DE00 1234', PORT: port, DATA_DIR: dataDir });
    expect(iban.code).toBe(1);
    expect(iban.stderr).toMatch(/^OPERATOR_IBAN must be an IBAN [^\n]*, got "DE00 1234"\n$/);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('npm run worker with a setting it cannot run with', { timeout: 120_000 }, () => {
  it('a malformed TAX_RATES_FILE: exit 1, the row on one stderr line, before connecting to DATABASE_URL', async () => {
    const result = await runWorker({ DATABASE_URL: UNREACHABLE_DATABASE, TAX_RATES_FILE: malformedCsv });
    expect(result.stderr).toBe('TAX_RATES_FILE row 12: rate "2O" is not a number 0–100\n');
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('unreachable');
  });

  it('a .json table without Malta’s standard rate: exit 1, naming the member state', async () => {
    const result = await runWorker({ DATABASE_URL: UNREACHABLE_DATABASE, TAX_RATES_FILE: withoutMalta });
    expect([result.code, result.stderr]).toEqual([1, 'TAX_RATES_FILE: member state MT has no standard rate\n']);
  });

  it('a valid .json table is taken: the worker goes on to the database, and stops on SIGTERM', async () => {
    const worker = startWorker({ DATABASE_URL: UNREACHABLE_DATABASE, TAX_RATES_FILE: validJson });
    running.push(worker);
    await vi.waitFor(() => expect(worker.output()).toContain('The database is unreachable'), { timeout: 60_000, interval: 100 });
    expect(worker.output()).not.toContain('TAX_RATES_FILE');
    expect(await stopWorker(worker)).toBe(0);
  });
});
