import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { allowanceConsume } from '@/server/rate-limit/allowance';

/**
 * A process spends a shared counter's points from an allowance it reserves ahead: fewer round
 * trips for a busy subject, never a call past the limit, and with several processes at most a
 * sixteenth of the limit refused early per other process.
 */

/** A shared counter (one per test) that counts the round trips made to it. */
function sharedCounter(limit: number, windowSeconds: number) {
  const limiter = new RateLimiterMemory({ points: limit, duration: windowSeconds });
  const counter = { roundTrips: 0, points: 0, limiter };
  const consume = limiter.consume.bind(limiter);
  limiter.consume = async (key: string | number, points = 1) => {
    counter.roundTrips += 1;
    counter.points += points;
    return consume(key, points);
  };
  return counter;
}

const outcome = (call: Promise<void>) =>
  call.then(
    () => 'passed' as const,
    (reason: unknown) => reason,
  );

describe('one process', () => {
  it('a busy subject reserves blocks that grow with what it spent: 1,000 calls one after another, a fraction of the round trips', async () => {
    const counter = sharedCounter(1_600, 60);
    const consume = allowanceConsume(counter.limiter, 1_600);
    for (let i = 0; i < 1_000; i += 1) await consume('key');
    // Blocks that double (1, 3, 7, 15 …) up to a sixteenth of the limit (100) ahead.
    expect(counter.roundTrips).toBeLessThan(20);
    expect(counter.points).toBeGreaterThanOrEqual(1_000);
    expect(counter.points).toBeLessThanOrEqual(1_000 + 100);
  });

  it('exactly the limit passes, whatever was reserved ahead; then every call is refused without a round trip until the window ends', async () => {
    const counter = sharedCounter(64, 1);
    const consume = allowanceConsume(counter.limiter, 64);
    const results = [];
    for (let i = 0; i < 70; i += 1) results.push(await outcome(consume('key')));
    expect(results.filter((result) => result === 'passed')).toHaveLength(64);
    expect(results.slice(0, 64).every((result) => result === 'passed')).toBe(true);
    for (const refusal of results.slice(64)) {
      expect(refusal).toBeInstanceOf(RateLimiterRes);
      expect((refusal as RateLimiterRes).msBeforeNext).toBeGreaterThan(0);
      expect((refusal as RateLimiterRes).msBeforeNext).toBeLessThanOrEqual(1_000);
    }
    const roundTrips = counter.roundTrips;
    for (let i = 0; i < 20; i += 1) expect(await outcome(consume('key'))).toBeInstanceOf(RateLimiterRes);
    expect(counter.roundTrips).toBe(roundTrips);

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await outcome(consume('key'))).toBe('passed');
    expect(counter.roundTrips).toBe(roundTrips + 1);
  });

  it('subjects are counted apart', async () => {
    const counter = sharedCounter(2, 60);
    const consume = allowanceConsume(counter.limiter, 2);
    expect([await outcome(consume('a')), await outcome(consume('a'))]).toEqual(['passed', 'passed']);
    expect(await outcome(consume('a'))).toBeInstanceOf(RateLimiterRes);
    expect(await outcome(consume('b'))).toBe('passed');
  });

  it('a burst larger than the limit: exactly the limit passes, in the order the calls came', async () => {
    const counter = sharedCounter(40, 60);
    const consume = allowanceConsume(counter.limiter, 40);
    const results = await Promise.all(Array.from({ length: 100 }, () => outcome(consume('key'))));
    expect(results.slice(0, 40).every((result) => result === 'passed')).toBe(true);
    expect(results.slice(40).every((result) => result instanceof RateLimiterRes)).toBe(true);
  });
});

describe('several processes on one counter', () => {
  it('never more than the limit passes; points another process holds are refused early, at most a sixteenth of the limit each', async () => {
    const counter = sharedCounter(320, 60);
    const processes = [allowanceConsume(counter.limiter, 320), allowanceConsume(counter.limiter, 320), allowanceConsume(counter.limiter, 320)];
    let passed = 0;
    let refused = 0;
    // Round robin until each process has been refused: the counter is spent out.
    const done = new Set<number>();
    for (let turn = 0; done.size < processes.length; turn += 1) {
      const index = turn % processes.length;
      if (done.has(index)) continue;
      const result = await outcome(processes[index]!('key'));
      if (result === 'passed') passed += 1;
      else {
        refused += 1;
        done.add(index);
      }
    }
    expect(refused).toBe(3);
    expect(passed).toBeLessThanOrEqual(320);
    // Each of the two others may hold up to 320 / 16 = 20 points unspent when the last is refused.
    expect(passed).toBeGreaterThanOrEqual(320 - 2 * 20);
  });

  it('a limit below sixteen is never reserved ahead: exact across processes', async () => {
    const counter = sharedCounter(15, 60);
    const one = allowanceConsume(counter.limiter, 15);
    const two = allowanceConsume(counter.limiter, 15);
    const results = [];
    for (let i = 0; i < 10; i += 1) results.push(await outcome(one('key')), await outcome(two('key')));
    expect(results.filter((result) => result === 'passed')).toHaveLength(15);
    expect(results.slice(0, 15).every((result) => result === 'passed')).toBe(true);
    // One point per call up to each process's first refusal (the 16th and 17th calls); the rest are refused at home.
    expect(counter.points).toBe(17);
    expect(counter.roundTrips).toBe(17);
  });
});
