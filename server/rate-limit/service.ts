import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '@/db/client';
import { rateLimits as rateLimitsTable } from '@/db/schema';
import {
  DEFAULT_CANCEL_LIMITS,
  DEFAULT_INVITE_LIMITS,
  DEFAULT_PAY_LIMITS,
  DEFAULT_PORTAL_PER_IP,
  DEFAULT_RESET_LIMITS,
  DEFAULT_SIGN_IN_LIMITS,
  DEFAULT_WITHDRAW_LIMITS,
  type RateLimitConfig,
} from '../config';
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
  | 'cancelIp'
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
  cancelIp: 'Too many cancellation forms sent from this address. Try again later.',
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
  // Password guessing is counted over minutes, API traffic per second.
  const windows = {
    api: config.windowSeconds,
    signIn: config.signInWindowSeconds ?? DEFAULT_SIGN_IN_LIMITS.windowSeconds,
    withdraw: config.withdrawWindowSeconds ?? DEFAULT_WITHDRAW_LIMITS.windowSeconds,
    cancel: config.cancelWindowSeconds ?? DEFAULT_CANCEL_LIMITS.windowSeconds,
    reset: config.resetWindowSeconds ?? DEFAULT_RESET_LIMITS.windowSeconds,
    invite: config.inviteWindowSeconds ?? DEFAULT_INVITE_LIMITS.windowSeconds,
    pay: config.payWindowSeconds ?? DEFAULT_PAY_LIMITS.windowSeconds,
  };
  const declinesPerIp = config.payPerIp ?? DEFAULT_PAY_LIMITS.perIp;
  /** Each bucket's points per window of `seconds`. */
  const limits: Record<RateLimitBucket, { points: number; seconds: number }> = {
    ip: { points: config.perIp, seconds: windows.api },
    key: { points: config.perKey, seconds: windows.api },
    productWrite: { points: config.productWritesPerKey, seconds: windows.api },
    portalIp: { points: config.portalPerIp ?? DEFAULT_PORTAL_PER_IP, seconds: windows.api },
    signInIp: { points: config.signInPerIp ?? DEFAULT_SIGN_IN_LIMITS.perIp, seconds: windows.signIn },
    signInEmail: { points: config.signInPerEmail ?? DEFAULT_SIGN_IN_LIMITS.perEmail, seconds: windows.signIn },
    withdrawIp: { points: config.withdrawPerIp ?? DEFAULT_WITHDRAW_LIMITS.perIp, seconds: windows.withdraw },
    cancelIp: { points: config.cancelPerIp ?? DEFAULT_CANCEL_LIMITS.perIp, seconds: windows.cancel },
    resetIp: { points: config.resetPerIp ?? DEFAULT_RESET_LIMITS.perIp, seconds: windows.reset },
    resetEmail: { points: config.resetPerEmail ?? DEFAULT_RESET_LIMITS.perEmail, seconds: windows.reset },
    inviteStore: { points: config.invitesPerStore ?? DEFAULT_INVITE_LIMITS.perStore, seconds: windows.invite },
    inviteInviter: { points: config.invitesPerInviter ?? DEFAULT_INVITE_LIMITS.perInviter, seconds: windows.invite },
    payIp: { points: declinesPerIp * DEFAULT_PAY_LIMITS.attemptsPerDecline, seconds: windows.pay },
    payDeclineIp: { points: declinesPerIp, seconds: windows.pay },
  };
  const counters = Object.fromEntries(
    (Object.keys(limits) as RateLimitBucket[]).map((bucket) => {
      const options = { keyPrefix: `rl:${bucket}`, points: limits[bucket].points, duration: limits[bucket].seconds };
      const memory = new RateLimiterMemory(options);
      // If the shared store fails, fall back to per-process counting rather than refusing traffic.
      const stored = shared ? new PreparedRateLimiterDrizzle({ ...options, storeClient: shared.db, schema: rateLimitsTable, insuranceLimiter: memory }) : undefined;
      const limiter: RateLimiterAbstract = stored ?? memory;
      const consume = isExactBucket(bucket) ? (subject: string) => limiter.consume(subject, 1).then(() => undefined) : allowanceConsume(limiter, options.points);
      const refund = (subject: string) => (stored ? stored.refund(subject) : refundMemory(memory, subject));
      return [bucket, { limiter, consume, refund }];
    }),
  ) as Record<RateLimitBucket, { limiter: RateLimiterAbstract; consume(subject: string): Promise<void>; refund(subject: string): Promise<void> }>;
  const refusal = (bucket: RateLimitBucket, msBeforeNext: number) => new ApiError('rate_limited', MESSAGES[bucket], { retryAfter: Math.max(1, Math.ceil(msBeforeNext / 1000)) });

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
      if (counted && counted.consumedPoints >= limits[bucket].points) throw refusal(bucket, counted.msBeforeNext);
    },
  };
}
