import { idempotencyKeys } from '@/db/schema';
import type { TestApi } from './server';

/**
 * A first request holding `key` of `operation` uncommitted: its key row is written in a
 * transaction left open while `whileHeld` runs, then committed or rolled back.
 */
export async function holdIdempotencyKey(
  api: TestApi,
  held: { storeId: string; operation: string; key: string; resourceId: string },
  settle: 'commit' | 'rollback',
  whileHeld: () => Promise<void>,
): Promise<void> {
  const rollback = new Error('rolled back');
  await api.services.db
    .transaction(async (tx) => {
      await tx.insert(idempotencyKeys).values({ ...held, livemode: false, requestHash: 'the first request’s hash', createdAt: api.clock.now() });
      await whileHeld();
      if (settle === 'rollback') throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
}
