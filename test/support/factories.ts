import type { Services } from '@/server/context';
import { randomBase62 } from '@/server/ids';
import { createStore as createStoreRecord, type StoreFlagsInput } from '@/server/stores/service';

/** A fresh store with its four keys; tests isolate by store, never by order. */
export function createStore(services: Pick<Services, 'db'>, flags: StoreFlagsInput & { name?: string } = {}) {
  return createStoreRecord(services.db, { name: flags.name ?? `Store ${randomBase62(6)}`, ...flags });
}

/** A sku no other test will take (skus are unique platform-wide). */
export function uniqueSku(prefix = 'SKU'): string {
  return `${prefix}-${randomBase62(12)}`;
}
