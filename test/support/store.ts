import { beforeAll, beforeEach } from 'vitest';
import type { StoreFlagsInput } from '@/server/stores/service';
import { T0 } from './api';
import { createStore } from './factories';
import type { TestApi } from './server';

/** A store of the test file, with `key` its test-mode secret key (the one most requests use). */
export type TestStore = Awaited<ReturnType<typeof createStore>> & { key: string };

/**
 * For a test file: one store made before its tests (and before the file's own beforeAll, with
 * the clock at T0), and the clock back at T0 before each test. The object is filled in then,
 * like useTestApi's: read its fields inside hooks and tests only.
 */
export function useTestStore(api: TestApi, flags: StoreFlagsInput & { name?: string } = {}): TestStore {
  const store = {} as TestStore;
  beforeAll(async () => {
    api.clock.set(T0);
    const created = await createStore(api.services, flags);
    Object.assign(store, created, { key: created.keys.sk_test });
  });
  beforeEach(() => api.clock.set(T0));
  return store;
}
