/** Customer e-mail's background work: the send pass (./delivery.ts), a periodic task in every process that does background work. */
import { startPeriodic, type PeriodicTask } from '../background';
import type { Services } from '../context';
import { sendDueEmails } from './delivery';

/** Sending is cheap to look for: one index probe when nothing is due. */
const DELIVERY_INTERVAL_MS = 2_000;

export function startMailDeliveryJob(services: Pick<Services, 'db' | 'clock' | 'config'>): PeriodicTask {
  return startPeriodic('customer e-mail delivery', () => sendDueEmails(services), { intervalMs: DELIVERY_INTERVAL_MS });
}
