import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '@/db/client';
import { rateLimits as rateLimitsTable } from '@/db/schema';
import { DEFAULT_PAY_LIMITS, DEFAULT_PORTAL_PER_IP, DEFAULT_SIGN_IN_LIMITS, DEFAULT_WITHDRAW_LIMITS, type RateLimitConfig } from '../config';
import { ApiError } from '../errors';
import { allowanceConsume } from './allowance';
import { PreparedRateLimiterDrizzle } from './store';

export type RateLimitBucket = 'ip' | 'key' | 'productWrite' | 'portalIp' | 'signInIp' | 'signInEmail' | 'withdrawIp' | 'payIp' | 'payDeclineIp';

export interface RateLimits {
  /** Spends one request of `bucket` for `subject`; throws 429 `rate_limited` with `Retry-After` when spent out. */
  consume(bucket: RateLimitBucket, subject: string): Promise<void>;
  /** Throws as `consume` does when `subject` has spent out `bucket`, without spending. */
  check(bucket: RateLimitBucket, subject: string): Promise<void>;
}

const MESSAGES: Record<RateLimitBucket, string> = {
  ip: 'Too many requests from this address. Retry after the time given in Retry-After.',
  key: 'Too many requests with this API key. Retry after the time given in Retry-After.',
  productWrite: 'Too many product writes with this API key. Retry after the time given in Retry-After.',
  portalIp: 'Too many portal page requests from this address. Retry after the time given in Retry-After.',
  signInIp: 'Too many sign-in attempts from this address. Try again later.',
  signInEmail: 'Too many sign-in attempts for this e-mail. Try again later.',
  withdrawIp: 'Too many withdrawal forms sent from this address. Try again later.',
  payIp: 'Too many payment attempts from this address. Retry after the time given in Retry-After.',
  payDeclineIp: 'Too many declined payments from this address. Retry after the time given in Retry-After.',
};

/** Buckets read by `check` (declines, which are few). */
const CHECKED_BUCKETS: ReadonlySet<RateLimitBucket> = new Set(['payDeclineIp']);

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
    signInIp: config.signInPerIp ?? DEFAULT_SIGN_IN_LIMITS.perIp,
    signInEmail: config.signInPerEmail ?? DEFAULT_SIGN_IN_LIMITS.perEmail,
    withdrawIp: config.withdrawPerIp ?? DEFAULT_WITHDRAW_LIMITS.perIp,
    payIp: (config.payPerIp ?? DEFAULT_PAY_LIMITS.perIp) * DEFAULT_PAY_LIMITS.attemptsPerDecline,
    payDeclineIp: config.payPerIp ?? DEFAULT_PAY_LIMITS.perIp,
  };
  // Password guessing is counted over minutes, API traffic per second.
  const signInWindow = config.signInWindowSeconds ?? DEFAULT_SIGN_IN_LIMITS.windowSeconds;
  const durations: Record<RateLimitBucket, number> = {
    ip: config.windowSeconds,
    key: config.windowSeconds,
    productWrite: config.windowSeconds,
    portalIp: config.windowSeconds,
    signInIp: signInWindow,
    signInEmail: signInWindow,
    withdrawIp: config.withdrawWindowSeconds ?? DEFAULT_WITHDRAW_LIMITS.windowSeconds,
    payIp: config.payWindowSeconds ?? DEFAULT_PAY_LIMITS.windowSeconds,
    payDeclineIp: config.payWindowSeconds ?? DEFAULT_PAY_LIMITS.windowSeconds,
  };
  const counters = Object.fromEntries(
    (Object.keys(points) as RateLimitBucket[]).map((bucket) => {
      const options = { keyPrefix: `rl:${bucket}`, points: points[bucket], duration: durations[bucket] };
      const memory = new RateLimiterMemory(options);
      // If the shared store fails, fall back to per-process counting rather than refusing traffic.
      const limiter: RateLimiterAbstract = shared
        ? new PreparedRateLimiterDrizzle({ ...options, storeClient: shared.db, schema: rateLimitsTable, insuranceLimiter: memory })
        : memory;
      // A bucket that is checked is spent exactly, a point per call: no allowance held ahead.
      const consume = CHECKED_BUCKETS.has(bucket) ? (subject: string) => limiter.consume(subject).then(() => undefined) : allowanceConsume(limiter, points[bucket]);
      return [bucket, { limiter, consume }];
    }),
  ) as Record<RateLimitBucket, { limiter: RateLimiterAbstract; consume: (subject: string) => Promise<void> }>;
  const refusal = (bucket: RateLimitBucket, msBeforeNext: number) =>
    new ApiError('rate_limited', MESSAGES[bucket], { retryAfter: Math.max(1, Math.ceil(msBeforeNext / 1000)) });

  return {
    async consume(bucket, subject) {
      try {
        await counters[bucket].consume(subject);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) throw refusal(bucket, rejection.msBeforeNext);
        throw rejection;
      }
    },
    async check(bucket, subject) {
      const counted = await counters[bucket].limiter.get(subject);
      if (counted && counted.consumedPoints >= points[bucket]) throw refusal(bucket, counted.msBeforeNext);
    },
  };
}
