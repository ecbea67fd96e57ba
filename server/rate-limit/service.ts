import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '@/db/client';
import { rateLimits as rateLimitsTable } from '@/db/schema';
import { DEFAULT_PORTAL_PER_IP, type RateLimitConfig } from '../config';
import { ApiError } from '../errors';
import { coalescedConsume } from './coalesce';
import { PreparedRateLimiterDrizzle } from './store';

export type RateLimitBucket = 'ip' | 'key' | 'productWrite' | 'portalIp';

export interface RateLimits {
  /** Spends one request of `bucket` for `subject`; throws 429 `rate_limited` with `Retry-After` when spent out. */
  consume(bucket: RateLimitBucket, subject: string): Promise<void>;
}

const MESSAGES: Record<RateLimitBucket, string> = {
  ip: 'Too many requests from this address. Retry after the time given in Retry-After.',
  key: 'Too many requests with this API key. Retry after the time given in Retry-After.',
  productWrite: 'Too many product writes with this API key. Retry after the time given in Retry-After.',
  portalIp: 'Too many portal page requests from this address. Retry after the time given in Retry-After.',
};

/**
 * Counters live in the database when one is shared by several instances (PostgreSQL), so the
 * limits hold across them; the embedded single-process mode counts in memory.
 */
export function createRateLimits(config: RateLimitConfig, shared: { db: Database } | undefined): RateLimits {
  const points: Record<RateLimitBucket, number> = {
    ip: config.perIp,
    key: config.perKey,
    productWrite: config.productWritesPerKey,
    portalIp: config.portalPerIp ?? DEFAULT_PORTAL_PER_IP,
  };
  const limiters = Object.fromEntries(
    (Object.keys(points) as RateLimitBucket[]).map((bucket) => {
      const options = { keyPrefix: `rl:${bucket}`, points: points[bucket], duration: config.windowSeconds };
      const memory = new RateLimiterMemory(options);
      // If the shared store fails, fall back to per-process counting rather than refusing traffic.
      const limiter: RateLimiterAbstract = shared
        ? new PreparedRateLimiterDrizzle({ ...options, storeClient: shared.db, schema: rateLimitsTable, insuranceLimiter: memory })
        : memory;
      return [bucket, coalescedConsume(limiter, points[bucket])];
    }),
  ) as Record<RateLimitBucket, (subject: string) => Promise<void>>;

  return {
    async consume(bucket, subject) {
      try {
        await limiters[bucket](subject);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
          throw new ApiError('rate_limited', MESSAGES[bucket], { retryAfter });
        }
        throw rejection;
      }
    },
  };
}
