import { advanceTestClock } from '@/server/test-clock/service';
import { dashboardBase } from '../access';
import { withError, type DashboardActionDefinition } from '../act/dispatch';

/** What the Home page's control offers, in seconds: a renewal, a trial or a retry schedule falls within one of them. */
export const CLOCK_STEPS: readonly { label: string; seconds: number }[] = [
  { label: '1 hour', seconds: 60 * 60 },
  { label: '1 day', seconds: 24 * 60 * 60 },
  { label: '7 days', seconds: 7 * 24 * 60 * 60 },
  { label: '30 days', seconds: 30 * 24 * 60 * 60 },
  { label: '1 year', seconds: 365 * 24 * 60 * 60 },
];

/** Moves the store's test clock forward and runs what falls due, as the API's advance_clock does. */
export const advanceClock: DashboardActionDefinition = {
  right: 'developer',
  async run({ form, services, mode, scope, actor }) {
    const home = dashboardBase('test');
    // Only test mode has a clock to move: a live post goes to where the clock is, with the reason.
    if (mode !== 'test') return withError(home, 'test_mode_only');
    const step = CLOCK_STEPS.find((choice) => String(choice.seconds) === form.text('seconds'));
    if (!step) return withError(home, 'clock_step');
    // The services' own wall clock: the new time is counted from it, as the API's advance_clock does.
    await advanceTestClock(Object.assign({}, services, { actor }), scope, step.seconds);
    return home;
  },
};
