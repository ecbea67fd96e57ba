/**
 * `npm start`: builds when needed, then runs scripts/serve.ts in this process, which applies
 * migrations, bootstraps the demo store and serves on PORT. The npm script execs this file, so
 * the signals a supervisor sends to npm reach this process (npm forwards them) and no shell
 * stands between them.
 * Plain JavaScript because it runs before anything is compiled; tsx loads the TypeScript.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';

process.env.NODE_ENV = 'production';
// Next reports usage to its makers unless told not to: off unless the operator turns it on.
process.env.NEXT_TELEMETRY_DISABLED ??= '1';
const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);

// As server/config.ts reads them (this file runs before TypeScript is loaded).
const port = Number(process.env.PORT || 3000);
const dataDir = path.resolve(process.env.DATA_DIR || '.data');

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * One `npm start` per data directory: PGlite must never be opened by two processes, and a second
 * start would otherwise build over the first one's `.next`. On PostgreSQL instances may share the
 * directory (it holds only the generated secrets), so there the lock is per port. A lock whose
 * process is gone (killed) is taken over.
 */
function takeDataDirLock() {
  const lockFile = path.join(dataDir, process.env.DATABASE_URL ? `npm-start-${port}.lock` : 'npm-start.lock');
  mkdirSync(dataDir, { recursive: true });
  for (;;) {
    try {
      writeFileSync(lockFile, JSON.stringify({ pid: process.pid, port }), { flag: 'wx' });
      process.on('exit', () => rmSync(lockFile, { force: true }));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let holder;
    try {
      holder = JSON.parse(readFileSync(lockFile, 'utf8'));
    } catch {
      holder = undefined;
    }
    if (holder && isAlive(holder.pid)) {
      console.error(`The service is already running with this data directory (${dataDir}): pid ${holder.pid}, port ${holder.port}.`);
      process.exit(1);
    }
    rmSync(lockFile, { force: true });
  }
}

/** Before any build: a port in use would only fail the start after it. */
async function checkPort() {
  const free = await new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
  if (!free) {
    console.error(`Port ${port} is already in use by another program. Set PORT to use another.`);
    process.exit(1);
  }
}

// First of all, before any build (which reads the configuration too, prerendering pages): a
// setting the service cannot run with stops the start with one line saying what to fix.
const { tsImport } = await import('tsx/esm/api');
const { loadConfigOrExit } = await tsImport('./config-or-exit.ts', import.meta.url);
loadConfigOrExit();

takeDataDirLock();
await checkPort();

/**
 * What the build does not read: changes here never call for a new build (`types/` is the
 * package's tRPC types, written by `npm install` and `npm run trpc:types`; `openapi/` the
 * committed document and `packages/client/dist` the browser library, both written from the sources by
 * `npm run openapi:write` and `npm run client:build`).
 */
const IGNORED = new Set(['node_modules', '.next', '.data', 'test', 'scripts', 'coverage', 'test-results', 'types']);
const IGNORED_PATHS = new Set(['openapi', path.join('packages', 'client', 'dist')]);
const IGNORED_EXTENSIONS = new Set(['.md', '.tsbuildinfo', '.log']);
// Declarations (next-env.d.ts, the generated ones) matter only to a type-check, which the build made here skips.
const isDeclaration = (name) => name.endsWith('.d.ts');

function newestSourceTime(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || IGNORED.has(entry.name)) continue;
    const full = path.join(directory, entry.name);
    if (IGNORED_PATHS.has(path.relative(root, full))) continue;
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceTime(full));
    else if (entry.isFile() && !IGNORED_EXTENSIONS.has(path.extname(entry.name)) && !isDeclaration(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function buildReason() {
  let built;
  try {
    built = statSync(path.join(root, '.next', 'BUILD_ID')).mtimeMs;
  } catch {
    return 'no production build yet';
  }
  return newestSourceTime(root) > built ? 'sources changed since the last build' : undefined;
}

const reason = buildReason();
if (reason) {
  console.log(`Building (${reason})…`);
  // Meanwhile a process of its own makes and migrates the database (the build leaves a core idle
  // for much of its time). It is awaited, never stopped halfway: a stop during the build waits for
  // it, and a Ctrl-C in the terminal does not reach it. What fails there, serve.ts meets again and reports.
  const preparing = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'prepare-database.ts')], { stdio: 'ignore', detached: true });
  const prepared = new Promise((resolve) => {
    preparing.once('exit', resolve);
    preparing.once('error', resolve);
  });
  const nextBin = createRequire(import.meta.url).resolve('next/dist/bin/next');
  // Starting the service needs no type-check (half the build's time) and no build cache for a next
  // build to reuse: `npm run build` does both.
  const build = spawn(process.execPath, [nextBin, 'build'], { stdio: 'inherit', env: { ...process.env, BUILD_TYPECHECK: 'false', BUILD_CACHE: 'false' } });
  // A stop during the build stops the build too, and nothing starts after it.
  let stoppedBy;
  const stopBuild = (signal) => {
    stoppedBy = signal;
    build.kill(signal);
  };
  process.on('SIGTERM', stopBuild);
  process.on('SIGINT', stopBuild);
  const status = await new Promise((resolve) => build.once('exit', (code) => resolve(code ?? 1)));
  await prepared;
  process.off('SIGTERM', stopBuild);
  process.off('SIGINT', stopBuild);
  if (stoppedBy) {
    console.log(`${stoppedBy}: stopped during the build.`);
    process.exit(0);
  }
  if (status !== 0) {
    console.error('The build failed; not starting.');
    process.exit(status);
  }
}

await tsImport('./serve.ts', import.meta.url);
