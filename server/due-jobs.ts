/**
 * Jobs that fall due when a store's test clock moves (expiries, recurring charges, retries): the
 * test clock runs them, in order, before advance_clock answers. Each domain declares its own in
 * its jobs.ts; server/test-clock/jobs.ts lists them.
 */
import type { Services } from './context';
import type { Scope } from './kit/scope';

/** `now` is the store's test clock after the move; jobs that call the gateway take it from `services`. */
export type DueJob = (services: Services, scope: Scope, now: Date) => Promise<unknown>;
