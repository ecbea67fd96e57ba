import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '@/db/client';
import { rateLimits as rateLimitsTable } from '@/db/schema';
import { DEFAULT_INVITE_LIMITS, DEFAULT_PAY_LIMITS, DEFAULT_PORTAL_PER_IP, DEFAULT_RESET_LIMITS, DEFAULT_SIGN_IN_LIMITS, DEFAULT_WITHDRAW_LIMITS, type RateLimitConfig } from '../config';
import { ApiError } from '../errors';
import { allowanceConsume } from './allowance';
import { PreparedRateLimiterDrizzle } from './store';

export type RateLimitBucket =
  | 'ip'
  | 'key'
  | 'productWrite'
  | 'portalIp'
  | 'signInIp'
  | 'signInEmail'
  | 'withdrawIp'
  | 'resetIp'
  | 'resetEmail'
  | 'inviteStore'
  | 'inviteInviter'
  | 'payIp'
  | 'payDeclineIp';
/** Sign-in attempts: each holds a point while it is checked, and one that succeeds gives it back. */
export type SignInBucket = 'signInIp' | 'signInEmail';

export interface RateLimits {
  /** Spends one request of `bucket` for `subject`; throws 429 `rate_limited` with `Retry-After` when spent out. */
  consume(bucket: RateLimitBucket, subject: string): Promise<void>;
  /** Gives back the point `consume` spent on a sign-in bucket, so that only failures count. */
  refund(bucket: SignInBucket, subject: string): Promise<void>;
  /** Throws as `consume` does when `subject` has spent out `bucket`, without spending. */
  check(bucket: RateLimitBucket, subject: string): Promise<void>;
}

const isSignInBucket = (bucket: RateLimitBucket): bucket is SignInBucket => bucket === 'signInIp' || bucket === 'signInEmail';

/**
 * Buckets counted a point per call on the counter itself, never from points reserved ahead: sign-in
 * attempts are given back on success, and declines are read by `check`, so a process's unspent
 * reservation would make both wrong.
 */
const isExactBucket = (bucket: RateLimitBucket): boolean => isSignInBucket(bucket) || bucket === 'payDeclineIp';

/** One point back on a counter in this process; an expired one is left alone (no credit for a new window). */
async function refundMemory(memory: RateLimiterMemory, subject: string): Promise<void> {
  const counted = await memory.get(subject);
  if (counted && counted.consumedPoints > 0) await memory.reward(subject, 1);
}

const MESSAGES: Record<RateLimitBucket, string> = {
  ip: 'Too many requests from this address. Retry after the time given in Retry-After.',
  key: 'Too many requests with this API key. Retry after the time given in Retry-After.',
  productWrite: 'Too many product writes with this API key. Retry after the time given in Retry-After.',
  portalIp: 'Too many portal page requests from this address. Retry after the time given in Retry-After.',
  signInIp: 'Too many sign-in attempts from this address. Try again later.',
  signInEmail: 'Too many sign-in attempts for this e-mail. Try again later.',
  withdrawIp: 'Too many withdrawal forms sent from this address. Try again later.',
  resetIp: 'Too many password reset requests from this address. Try again later.',
  resetEmail: 'Too many password reset requests for this e-mail. Try again later.',
  inviteStore: 'Too many invitations from this store. Try again later.',
  inviteInviter: 'Too many invitations by this person. Try again later.',
  payIp: 'Too many payment attempts from this address. Retry after the time given in Retry-After.',
  payDeclineIp: 'Too many declined payments from this address. Retry after the time given in Retry-After.',
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
    signInIp: config.signInPerIp ?? DEFAULT_SIGN_IN_LIMITS.perIp,
    signInEmail: config.signInPerEmail ?? DEFAULT_SIGN_IN_LIMITS.perEmail,
    withdrawIp: config.withdrawPerIp ?? DEFAULT_WITHDRAW_LIMITS.perIp,
    resetIp: config.resetPerIp ?? DEFAULT_RESET_LIMITS.perIp,
    resetEmail: config.resetPerEmail ?? DEFAULT_RESET_LIMITS.perEmail,
    inviteStore: config.invitesPerStore ?? DEFAULT_INVITE_LIMITS.perStore,
    inviteInviter: config.invitesPerInviter ?? DEFAULT_INVITE_LIMITS.perInviter,
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
    resetIp: config.resetWindowSeconds ?? DEFAULT_RESET_LIMITS.windowSeconds,
    resetEmail: config.resetWindowSeconds ?? DEFAULT_RESET_LIMITS.windowSeconds,
    inviteStore: config.inviteWindowSeconds ?? DEFAULT_INVITE_LIMITS.windowSeconds,
    inviteInviter: config.inviteWindowSeconds ?? DEFAULT_INVITE_LIMITS.windowSeconds,
    payIp: config.payWindowSeconds ?? DEFAULT_PAY_LIMITS.windowSeconds,
    payDeclineIp: config.payWindowSeconds ?? DEFAULT_PAY_LIMITS.windowSeconds,
  };
  const counters = Object.fromEntries(
    (Object.keys(points) as RateLimitBucket[]).map((bucket) => {
      const options = { keyPrefix: `rl:${bucket}`, points: points[bucket], duration: durations[bucket] };
      const memory = new RateLimiterMemory(options);
      // If the shared store fails, fall back to per-process counting rather than refusing traffic.
      const stored = shared ? new PreparedRateLimiterDrizzle({ ...options, storeClient: shared.db, schema: rateLimitsTable, insuranceLimiter: memory }) : undefined;
      const limiter: RateLimiterAbstract = stored ?? memory;
      const consume = isExactBucket(bucket) ? (subject: string) => limiter.consume(subject, 1).then(() => undefined) : allowanceConsume(limiter, points[bucket]);
      const refund = (subject: string) => (stored ? stored.refund(subject) : refundMemory(memory, subject));
      return [bucket, { limiter, consume, refund }];
    }),
  ) as Record<RateLimitBucket, { limiter: RateLimiterAbstract; consume(subject: string): Promise<void>; refund(subject: string): Promise<void> }>;
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
    refund: (bucket, subject) => counters[bucket].refund(subject),
    async check(bucket, subject) {
      const counted = await counters[bucket].limiter.get(subject);
      if (counted && counted.consumedPoints >= points[bucket]) throw refusal(bucket, counted.msBeforeNext);
    },
  };
}
