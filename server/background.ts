/**
 * Background work of a process: reconciliation of payments, refunds and first subscription
 * charges, recurring billing, webhook delivery (server/background-tasks.ts lists them). Expiry is
 * no task: a checkout session or subscription checkout past its deadline is written `expired`
 * when it is next read, or when advance_clock moves its store's test clock past it. Every task
 * finds its work in the database, so any number of instances may run them side by side: billing
 * and delivery claim rows with FOR UPDATE SKIP LOCKED, and the reconcilers settle each row once
 * (a locked or conditional write), however many passes race. They run in the web process by default
 * (server/app.ts) and, with BACKGROUND_WORK=false on the web instances, in a separate
 * `npm run worker` process.
 */
import type { Services } from './context';
import { log } from './observability/log';

export interface PeriodicTask {
  /** No further runs; resolves once a run in progress has finished. */
  stop(): Promise<void>;
  /** One run now (or the one in progress); resolves when it is done (shutdown, tests). */
  runOnce(): Promise<number>;
}

/**
 * Runs `work` every `intervalMs`, one run at a time. The timer is unref'd: it never keeps a
 * process alive. `work` resolves to how many items it handled.
 */
export function startPeriodic(name: string, work: () => Promise<number>, options: { intervalMs: number; onError?: (error: unknown) => void }): PeriodicTask {
  let running: Promise<number> | undefined;
  const onError = options.onError ?? ((error: unknown) => log.error(`${name} failed: ${error instanceof Error ? error.message : String(error)}`));
  const runOnce = () => {
    running ??= work().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    runOnce().catch(onError);
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
    runOnce,
  };
}

export type BackgroundStarter = (services: Services) => PeriodicTask;

/** Starts every background task of the registry; `stop` stops them all. */
export function startBackgroundTasks(services: Services, starters: readonly BackgroundStarter[]): PeriodicTask {
  const tasks = starters.map((start) => start(services));
  return {
    async stop() {
      await Promise.all(tasks.map((task) => task.stop()));
    },
    async runOnce() {
      let handled = 0;
      for (const task of tasks) handled += await task.runOnce();
      return handled;
    },
  };
}
