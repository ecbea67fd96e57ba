/**
 * What falls due when a store's test clock moves (CONTRACT 3: expiries, recurring charges,
 * retries, webhook scheduling), run in this order before advance_clock answers. Billing and
 * webhooks add their own job here.
 */
import type { Database } from '@/db/client';
import { expireDueCheckoutSessions } from '../checkout/service';

export interface DueJobScope {
  storeId: string;
  livemode: boolean;
}

export type DueJob = (db: Database, scope: DueJobScope, now: Date) => Promise<unknown>;

export const DUE_JOBS: readonly DueJob[] = [expireDueCheckoutSessions];

export async function runDueJobs(db: Database, scope: DueJobScope, now: Date): Promise<void> {
  for (const job of DUE_JOBS) await job(db, scope, now);
}
