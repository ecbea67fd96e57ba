import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '@/db/client';
import { rateLimits } from '@/db/schema';
import { ApiError } from '@/server/errors';
import { createRateLimits } from '@/server/rate-limit/service';
import { createTestDatabase } from '../support/database';
import { nextIp } from '../http/helpers';

/**
 * Rate limits under concurrency: requests that arrive together are counted together, and a
 * process reserves points ahead for the next ones (server/rate-limit/allowance.ts), yet exactly
 * the limit passes and every other one is refused, on the shared store as in memory.
 */
let database: DatabaseHandle;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database.close();
});

const limitsOn = (store: 'memory' | 'shared', limit: number, windowSeconds = 60) =>
  createRateLimits({ perIp: limit, perKey: limit, productWritesPerKey: limit, windowSeconds }, store === 'shared' ? { db: database.db } : undefined);

async function outcomes(store: 'memory' | 'shared', limit: number, requests: number) {
  const limits = limitsOn(store, limit);
  const ip = nextIp();
  const settled = await Promise.allSettled(Array.from({ length: requests }, () => limits.consume('ip', ip)));
  // A later request, alone, is refused too: the counter holds every request of the burst.
  const after = await limits.consume('ip', ip).then(
    () => 'passed',
    (error: unknown) => error,
  );
  return { settled, after };
}

describe.each(['memory', 'shared'] as const)('a burst of concurrent requests (%s counters)', (store) => {
  it('exactly the limit passes; the rest are 429 rate_limited with Retry-After', async () => {
    const { settled, after } = await outcomes(store, 7, 20);
    expect(settled.filter((result) => result.status === 'fulfilled')).toHaveLength(7);
    const refused = settled.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(refused).toHaveLength(13);
    for (const { reason } of [...refused, { reason: after }]) {
      expect(reason).toBeInstanceOf(ApiError);
      expect((reason as ApiError).code).toBe('rate_limited');
      expect((reason as ApiError).retryAfter).toBeGreaterThanOrEqual(1);
      expect((reason as ApiError).retryAfter).toBeLessThanOrEqual(60);
    }
  });

  it('a burst within the limit passes whole', async () => {
    const { settled, after } = await outcomes(store, 21, 20);
    expect(settled.every((result) => result.status === 'fulfilled')).toBe(true);
    expect(after).toBe('passed');
  });
});

describe.each(['memory', 'shared'] as const)('the window (%s counters)', (store) => {
  it('once the window has passed the count starts afresh', async () => {
    // A 3 s window: three consumes fit in it even when a loaded machine stalls for a second.
    const limits = limitsOn(store, 2, 3);
    const ip = nextIp();
    await limits.consume('ip', ip);
    await limits.consume('ip', ip);
    const refused = await limits.consume('ip', ip).then(
      () => undefined,
      (error: unknown) => error as ApiError,
    );
    expect(refused).toMatchObject({ code: 'rate_limited' });
    expect(refused!.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused!.retryAfter).toBeLessThanOrEqual(3);
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    await limits.consume('ip', ip);
    await limits.consume('ip', ip);
    await expect(limits.consume('ip', ip)).rejects.toMatchObject({ code: 'rate_limited' });
    if (store === 'shared') {
      const rows = await database.db
        .select({ points: rateLimits.points })
        .from(rateLimits)
        .where(eq(rateLimits.key, `rl:ip:${ip}`));
      expect(rows).toEqual([{ points: 3 }]);
    }
  });
});

describe('the shared counters table', () => {
  it('is unlogged: a counter upsert writes no WAL, and a crash only resets the windows', async () => {
    const rows = await database.db.select({ persistence: sql<string>`relpersistence` }).from(sql`pg_class`).where(sql`relname = 'rate_limits'`);
    expect(rows).toEqual([{ persistence: 'u' }]);
  });
});
