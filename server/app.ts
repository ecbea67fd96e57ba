import { sql } from 'drizzle-orm';
import { openMigratedDatabase, statementDatabase, type DatabaseHandle } from '@/db/client';
import { systemClock } from './clock';
import { loadConfig, type Config } from './config';
import type { Services } from './context';
import { ensureSecrets } from './bootstrap';
import { createGateways } from './gateway';
import { createApiHandlerFor } from './http/api-handler';
import type { ApiHandler } from './http/transport';
import { appHolder, type AppSingleton } from './app-singleton';
import { startBackgroundTasks } from './background';
import { BACKGROUND_TASKS } from './background-tasks';
import { createRateLimits } from './rate-limit/service';
import { appRouter } from './router';

/** Opens the database, applies migrations and wires the services of one process. */
export async function createServices(configured: Config): Promise<{ services: Services; database: DatabaseHandle }> {
  // Hosted links and client secrets are signed with AUTH_SECRET, generated once when unset.
  const config = configured.authSecret ? configured : { ...configured, authSecret: (await ensureSecrets(configured)).authSecret };
  const database = await openMigratedDatabase({ url: config.databaseUrl, pgliteDir: config.pgliteDir });
  // PostgreSQL: counters shared by every instance, on the hot statements' connections (db/client.ts).
  const rateLimits = createRateLimits(config.rateLimits, database.driver === 'postgres' ? { db: statementDatabase(database.db) } : undefined);
  const gateways = createGateways({ db: database.db, clock: systemClock, config });
  return { services: { db: database.db, clock: systemClock, config, rateLimits, gateways }, database };
}

/** The API: every domain's procedures behind the HTTP front, as REST under /api/v1 and over tRPC under /api/trpc. */
export function createApiHandler(services: Services): ApiHandler {
  return createApiHandlerFor(appRouter, services);
}

function app(): AppSingleton {
  if (!appHolder.__paymentsApp) {
    const started = createServices(loadConfig()).then((created) => ({ ...created, apiHandler: createApiHandler(created.services) }));
    const singleton: AppSingleton = { started };
    appHolder.__paymentsApp = singleton;
    started.then(
      ({ services }) => {
        // Reconciliation, billing, webhook delivery (server/background-tasks.ts), unless a
        // separate `npm run worker` does them (BACKGROUND_WORK=false).
        if (appHolder.__paymentsApp === singleton && services.config.backgroundWork) singleton.background = startBackgroundTasks(services, BACKGROUND_TASKS);
      },
      () => {
        if (appHolder.__paymentsApp === singleton) delete appHolder.__paymentsApp;
      },
    );
  }
  return appHolder.__paymentsApp;
}

export const getAppServices = (): Promise<Services> => app().started.then((started) => started.services);
export const getApiHandler = (): Promise<ApiHandler> => app().started.then((started) => started.apiHandler);

/**
 * Readiness: the start applied the migrations before it resolved, so a database that answers
 * now is a ready one. A start that failed rejects here, and the next check starts again.
 */
export async function checkDatabase(): Promise<void> {
  const { database } = await app().started;
  await database.db.execute(sql`select 1`);
}
