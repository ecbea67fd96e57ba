import type { ApiHandler } from '../http/transport';

/**
 * scripts/serve.ts serves /api/v1 itself, without Next's request pipeline, yet with Next's own
 * build of the handler: the same modules the pages and route files run, rather than a second
 * copy of the server code loaded by tsx for serve.ts. instrumentation.ts, which Next runs once
 * when it prepares its server, publishes it here, with the readiness check of the same app (it
 * must not start a second one).
 */
export interface PublishedApp {
  getApiHandler: () => Promise<ApiHandler>;
  /** Resolves when the database answers with the migrations applied (GET /readyz). */
  checkDatabase: () => Promise<void>;
}

const PUBLISHED = Symbol.for('payments-service:api-handler');
const holder = globalThis as typeof globalThis & { [PUBLISHED]?: PublishedApp };

export function publishApp(app: PublishedApp): void {
  holder[PUBLISHED] = app;
}

export function publishedApp(): PublishedApp | undefined {
  return holder[PUBLISHED];
}
