/** The test clock's contract: move a store's test-mode time forward. */
import { z } from 'zod';
import { strict } from '../kit/json-schema';
import { EXAMPLE } from '../kit/examples';

/**
 * How far a store's test clock may run ahead of the real time: 5 × 365 days. Time-driven passes
 * look at every store's rows up to its own clock, so one store far in the future makes them scan
 * everything.
 */
export const MAX_CLOCK_AHEAD_SECONDS = 5 * 365 * 24 * 60 * 60;

export const advanceClockInput = z
  .strictObject({
    seconds: strict(z.number().int().min(1).max(MAX_CLOCK_AHEAD_SECONDS)).describe(
      `How far to move this store's test-mode clock forward, in whole seconds: 1–${MAX_CLOCK_AHEAD_SECONDS}. The clock never runs more than 5 × 365 days (${MAX_CLOCK_AHEAD_SECONDS} seconds) ahead of the real time: a move past that is refused and changes nothing.`,
    ),
  })
  .meta({ examples: [{ seconds: 86_400 }] });

export const testClockSchema = z
  .object({
    object: z.literal('test_clock'),
    now: z.number().int().describe("The store's test-mode time after the move, in epoch seconds."),
  })
  .meta({ id: 'TestClock', examples: [{ object: 'test_clock', now: EXAMPLE.created + 86_414 }] });
export type TestClockView = z.infer<typeof testClockSchema>;
