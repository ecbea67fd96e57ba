/**
 * Background work of a process: expiry sweeps, payment reconciliation, recurring billing,
 * webhook delivery. Every task keeps its queue in the database (rows claimed with
 * FOR UPDATE SKIP LOCKED or guarded by unique keys), so any number of instances may run them
 * side by side. They run in the web process by default (server/app.ts) and, with
 * BACKGROUND_WORK=false on the web instances, in a separate `npm run worker` process.
 */
import type { Services } from './context';

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
export function startPeriodic(
  name: string,
  work: () => Promise<number>,
  options: { intervalMs: number; onError?: (error: unknown) => void },
): PeriodicTask {
  let running: Promise<number> | undefined;
  const onError = options.onError ?? ((error: unknown) => console.error(`${name} failed: ${error instanceof Error ? error.message : String(error)}`));
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
