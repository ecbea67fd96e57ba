import { AsyncLocalStorage } from 'node:async_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPageContexts } from '@/server/host/page-contexts';
import { ROOT } from '../support/production-server';

// This file runs in a process of its own (vitest.config.ts): the tracking wraps Node's AsyncLocalStorage for the whole process.
const IDLE_MS = 150;
const pageContexts = createPageContexts(IDLE_MS);
/** Stands for Next's and React's request contexts. */
const storage = new AsyncLocalStorage<string>();

/** Whether a promise made now carries the hooks' bookkeeping, as every promise does while a context is enabled. */
async function promisesTracked(): Promise<boolean> {
  // Node stops its promise hook one turn after the last context is disabled.
  await new Promise(setImmediate);
  return Object.getOwnPropertySymbols(Promise.resolve()).length > 0;
}

let server: Server;
let origin: string;

beforeAll(async () => {
  // A page: rendered in its context, which it reads again after `hold` ms of asynchronous work.
  server = createServer((req, res) => {
    pageContexts.track(res);
    const url = req.url ?? '/';
    void storage.run(url, async () => {
      await sleep(Number(new URL(url, 'http://page').searchParams.get('hold') ?? 0));
      await Promise.resolve();
      res.end(storage.getStore() ?? 'no context');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const page = async (path: string) => (await fetch(`${origin}${path}`)).text();

describe('page contexts', () => {
  it('stay on while any page is in flight, however long it takes, and go off once none has been for the idle time', async () => {
    expect(await promisesTracked()).toBe(false);
    // The short page closes first and the long one outlasts the idle time: it keeps its context.
    const [long, short] = await Promise.all([page(`/long?hold=${IDLE_MS * 3}`), page('/short')]);
    expect(short).toBe('/short');
    expect(long).toBe(`/long?hold=${IDLE_MS * 3}`);
    expect(await promisesTracked()).toBe(true);
    await sleep(IDLE_MS * 2);
    expect(await promisesTracked()).toBe(false);
  });

  it('a page after they went off has its context again', async () => {
    await sleep(IDLE_MS * 2);
    expect(await promisesTracked()).toBe(false);
    expect(await page(`/again?hold=${IDLE_MS * 2}`)).toBe(`/again?hold=${IDLE_MS * 2}`);
    expect(await promisesTracked()).toBe(true);
    await sleep(IDLE_MS * 2);
    expect(await promisesTracked()).toBe(false);
  });

  it('no code of ours enters a context of its own: it would lose its store between pages', () => {
    const sources = ['server', 'app', 'db', 'scripts', 'packages']
      .flatMap((dir) => readdirSync(`${ROOT}/${dir}`, { recursive: true, encoding: 'utf8' }).map((file) => `${dir}/${file}`))
      .concat(['proxy.ts', 'instrumentation.ts'])
      .filter((file) => /\.(ts|tsx|mjs)$/.test(file) && !file.includes('node_modules/'));
    expect(sources.length).toBeGreaterThan(300);
    expect(sources.filter((file) => readFileSync(`${ROOT}/${file}`, 'utf8').includes('AsyncLocalStorage'))).toEqual(['server/host/page-contexts.ts']);
  });
});
