import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
}

/**
 * Spends one point per call with at most one store round trip in flight per subject: calls that
 * arrive meanwhile are added up and spent together next (one atomic increment by their number).
 * Each call learns its own place in the count, so exactly the calls past `limit` are refused, as
 * one increment each would decide. Under load the hot counters (one per client address, one per
 * key) then cost a round trip per batch instead of one per request; alone, a call goes
 * out at once. Refusals reject with the limiter's RateLimiterRes (its msBeforeNext).
 */
export function coalescedConsume(limiter: RateLimiterAbstract, limit: number): (subject: string) => Promise<void> {
  const queued = new Map<string, Waiter[]>();
  const inFlight = new Set<string>();

  function settle(batch: Waiter[], counted: RateLimiterRes): void {
    // A refusal that is not a count (e.g. a block) refuses the whole batch.
    const before = counted.consumedPoints - batch.length;
    batch.forEach((waiter, index) => (before >= 0 && before + index + 1 <= limit ? waiter.resolve() : waiter.reject(counted)));
  }

  function send(subject: string): void {
    const batch = queued.get(subject);
    if (!batch) {
      inFlight.delete(subject);
      return;
    }
    queued.delete(subject);
    inFlight.add(subject);
    limiter
      .consume(subject, batch.length)
      .then(
        (counted) => settle(batch, counted),
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) settle(batch, rejection);
          else for (const waiter of batch) waiter.reject(rejection);
        },
      )
      .finally(() => send(subject));
  }

  return (subject) =>
    new Promise<void>((resolve, reject) => {
      const batch = queued.get(subject);
      if (batch) batch.push({ resolve, reject });
      else queued.set(subject, [{ resolve, reject }]);
      if (!inFlight.has(subject)) send(subject);
    });
}
