import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
}

/** Points this process holds of one subject's shared counter, in its current window. */
interface Allowance {
  /** Reserved on the counter and not yet spent by a call. */
  points: number;
  /** The window's end (ms): what is left then is dropped, and the counter starts afresh. */
  expiresAt: number;
  /** Calls served from this allowance: the next reservation takes twice as many ahead. */
  served: number;
  /** Set when the counter is spent out: every call until the window's end is refused without asking. */
  refusal?: RateLimiterRes;
}

/**
 * The most a reservation takes beyond the calls waiting for it, as a share of the limit. Points
 * one process holds unspent are refused to the others until the window ends, so with several
 * instances a subject may be refused this much early, never let past its limit; below 16 points a
 * limit is never reserved ahead, and so exact across instances.
 */
const AHEAD_SHARE = 16;

/** Allowances whose window is over are dropped once the map has doubled since the last sweep. */
const MIN_SWEEP_SIZE = 1_024;

/**
 * Spends one point per call of a shared counter (`limiter`, e.g. a database row per subject)
 * with `limit` points per window. Calls are served from points this process has reserved on the
 * counter; when they run out, the calls that arrive meanwhile wait for one reservation (one
 * atomic increment) of their number plus twice the calls of the subject since this process's
 * last one, up to a sixteenth of the limit. A hot key or address then costs a round
 * trip per block of calls instead of one per call, and the counter is never past the limit for a
 * call it let through. Each waiting call learns its own place in the count, so exactly the calls
 * past `limit` are refused, as one increment each would decide; once the counter is spent out,
 * calls are refused without a round trip until the window ends. Refusals reject with a
 * RateLimiterRes (its msBeforeNext). `now` is the clock in milliseconds (a test's own).
 */
export function allowanceConsume(limiter: RateLimiterAbstract, limit: number, now: () => number = Date.now): (subject: string) => Promise<void> {
  const maxAhead = Math.floor(limit / AHEAD_SHARE);
  const allowances = new Map<string, Allowance>();
  const queued = new Map<string, Waiter[]>();
  const inFlight = new Set<string>();
  let sweepAt = MIN_SWEEP_SIZE;

  const current = (subject: string): Allowance | undefined => {
    const allowance = allowances.get(subject);
    return allowance && now() < allowance.expiresAt ? allowance : undefined;
  };

  /** Serves the call from the allowance if it can: true when it was settled, either way. */
  function serveLocally(subject: string, waiter: Waiter): boolean {
    const allowance = current(subject);
    if (!allowance) return false;
    if (allowance.points > 0) {
      allowance.points -= 1;
      allowance.served += 1;
      waiter.resolve();
      return true;
    }
    if (allowance.refusal) {
      // The counter stays spent out until its window ends: the refusal's wait is what is left of it.
      waiter.reject(new RateLimiterRes(0, Math.max(0, allowance.expiresAt - now()), allowance.refusal.consumedPoints, false));
      return true;
    }
    return false;
  }

  function sweep(): void {
    if (allowances.size < sweepAt) return;
    const time = now();
    for (const [subject, allowance] of allowances) if (allowance.expiresAt <= time) allowances.delete(subject);
    sweepAt = Math.max(MIN_SWEEP_SIZE, allowances.size * 2);
  }

  function settle(subject: string, batch: Waiter[], requested: number, counted: RateLimiterRes): void {
    // A refusal that is not a count (e.g. a block) refuses the whole batch.
    const before = counted.consumedPoints - requested;
    const granted = before < 0 ? 0 : Math.max(0, Math.min(requested, limit - before));
    batch.forEach((waiter, index) => (index < granted ? waiter.resolve() : waiter.reject(counted)));
    const spentOut = granted < requested;
    allowances.set(subject, {
      points: Math.max(0, granted - batch.length),
      expiresAt: now() + counted.msBeforeNext,
      served: 0,
      ...(spentOut ? { refusal: counted } : {}),
    });
    sweep();
  }

  function send(subject: string): void {
    const waiting = queued.get(subject) ?? [];
    queued.delete(subject);
    const batch = waiting.filter((waiter) => !serveLocally(subject, waiter));
    if (batch.length === 0) {
      inFlight.delete(subject);
      return;
    }
    inFlight.add(subject);
    // Twice the calls since the last reservation: a busy subject's blocks double up to the cap.
    const demand = batch.length + (allowances.get(subject)?.served ?? 0);
    const requested = batch.length + Math.min(maxAhead, 2 * demand);
    limiter
      .consume(subject, requested)
      .then(
        (counted) => settle(subject, batch, requested, counted),
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) settle(subject, batch, requested, rejection);
          else for (const waiter of batch) waiter.reject(rejection);
        },
      )
      .finally(() => send(subject));
  }

  return (subject) =>
    new Promise<void>((resolve, reject) => {
      const waiter = { resolve, reject };
      if (!inFlight.has(subject) && serveLocally(subject, waiter)) return;
      const waiting = queued.get(subject);
      if (waiting) waiting.push(waiter);
      else queued.set(subject, [waiter]);
      if (!inFlight.has(subject)) send(subject);
    });
}
