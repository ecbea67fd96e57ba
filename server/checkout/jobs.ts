/** Checkout's background work: sessions past their deadline expire, on a timer and when the test clock moves. */
import { checkoutSessions } from '@/db/schema';
import { startPeriodic, type PeriodicTask } from '../background';
import type { Services } from '../context';
import type { DueJob } from '../due-jobs';
import { expireDueRows } from '../kit/expiry';
import { expireCheckoutSessions, expireDueCheckoutSessions } from './expiry';
import { log } from '../observability/log';

export const expireCheckoutSessionsDueJob: DueJob = ({ db, clock, config }, scope, now) => expireDueRows(db, checkoutSessions, scope, now, expireCheckoutSessions({ config, wallClock: clock }));

/** How often the sweep runs: a session's `checkout.session.expired` is written within a minute of its deadline. */
const SWEEP_INTERVAL_MS = 20_000;

/** The background task (server/background-tasks.ts). */
export function startCheckoutExpiryJob(services: Pick<Services, 'db' | 'clock' | 'config'>): PeriodicTask {
  const deps = { config: services.config, wallClock: services.clock };
  return startPeriodic('checkout session expiry', () => expireDueCheckoutSessions(services.db, deps), {
    intervalMs: SWEEP_INTERVAL_MS,
    onError: (error) => log.error(`checkout session expiry failed: ${error instanceof Error ? error.message : String(error)}`),
  });
}
