/**
 * SIGTERM and SIGINT for the long-running commands (`npm start`, `npm run worker`): the first
 * calls `stop`, which finishes the work in flight and exits. npm forwards the signal it gets to
 * the command, and a terminal's Ctrl-C reaches npm and the command alike, so the same request
 * often arrives twice: a repeat within a second is ignored; a later one exits at once.
 */
import { log } from '@/server/observability/log';

const REPEAT_WINDOW_MS = 1_000;

export function onStopSignal(stop: (signal: NodeJS.Signals) => void): void {
  let firstAt: number | undefined;
  const handle = (signal: NodeJS.Signals) => {
    if (firstAt === undefined) {
      firstAt = Date.now();
      stop(signal);
    } else if (Date.now() - firstAt >= REPEAT_WINDOW_MS) {
      log.warn(`${signal} again: exiting now.`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
