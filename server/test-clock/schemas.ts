/** The test clock's contract: move a store's test-mode time forward. */
import { z } from 'zod';
import { strict } from '../http/json-schema';
import { EXAMPLE } from '../kit/examples';

/** Ten years per call; the offset column holds about 68 years in all. */
export const MAX_ADVANCE_SECONDS = 10 * 365 * 24 * 60 * 60;

export const advanceClockInput = z.strictObject({
  seconds: strict(z.number().int().min(1).max(MAX_ADVANCE_SECONDS)).describe(
    `How far to move this store's test-mode clock forward, in whole seconds: 1–${MAX_ADVANCE_SECONDS}.`,
  ),
}).meta({ examples: [{ seconds: 86_400 }] });

export const testClockSchema = z
  .object({
    object: z.literal('test_clock'),
    now: z.number().int().describe("The store's test-mode time after the move, in epoch seconds."),
  })
  .meta({ id: 'TestClock', examples: [{ object: 'test_clock', now: EXAMPLE.created + 86_414 }] });
export type TestClockView = z.infer<typeof testClockSchema>;
