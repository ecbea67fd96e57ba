import type { DatabaseHandle } from '@/db/client';
import type { PeriodicTask } from './background';
import type { Services } from './context';
import type { ApiHandler } from './http/transport';

/** The process's services, database and API handler (server/app.ts starts them on first use). */
export interface AppSingleton {
  started: Promise<{ services: Services; database: DatabaseHandle; apiHandler: ApiHandler }>;
  background?: PeriodicTask;
}

// On globalThis so that Next's separately bundled route modules share one database client
// (PGlite must never open its data directory twice). Callers during a start share it; a start
// that failed (the database unreachable for a moment) is forgotten, so the next caller starts again.
export const appHolder = globalThis as typeof globalThis & { __paymentsApp?: AppSingleton };

/**
 * On shutdown (scripts/serve.ts): closes the database if this process opened it, so PGlite stops
 * cleanly. Apart from server/app.ts, so that serve.ts does not load every domain to call it.
 */
export async function closeAppServices(): Promise<void> {
  const opened = appHolder.__paymentsApp;
  if (!opened) return;
  delete appHolder.__paymentsApp;
  await opened.background?.stop();
  await (await opened.started).database.close();
}
