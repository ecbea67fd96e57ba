import { createRouter, secretKeyProcedure } from '../trpc';
import { advanceClockInput, testClockSchema } from './schemas';
import { advanceTestClock } from './service';

export const testClockRouter = createRouter({
  // POST /api/v1/test_helpers/advance_clock: move this store's test-mode time forward and run what falls due.
  advance: secretKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/test_helpers/advance_clock',
        tags: ['Test helpers'],
        summary: 'Advance the test clock',
        description: "Moves the store's test-mode clock forward, runs everything that falls due (expiries first), then answers with the new time. Test secret keys only.",
        protect: true,
      },
      errors: ['test_mode_only'],
    })
    .input(advanceClockInput)
    .output(testClockSchema)
    // The new time is counted from wall time, and the jobs that fall due keep the wall clock.
    .mutation(({ ctx, input }) => advanceTestClock({ ...ctx, clock: ctx.wallClock }, ctx.subject, input.seconds)),
});
