import type { ApiHandler } from './transport';

/**
 * scripts/serve.ts serves /api/v1 itself, without Next's request pipeline, yet with Next's own
 * build of the handler: the same modules the pages and route files run, rather than a second
 * copy of the server code loaded by tsx for serve.ts.
 * instrumentation.ts, which Next runs once when it prepares its server, publishes it here.
 */
const PUBLISHED = Symbol.for('payments-service:api-handler');
type HandlerGetter = () => Promise<ApiHandler>;
const holder = globalThis as typeof globalThis & { [PUBLISHED]?: HandlerGetter };

export function publishApiHandler(getHandler: HandlerGetter): void {
  holder[PUBLISHED] = getHandler;
}

export function publishedApiHandler(): HandlerGetter | undefined {
  return holder[PUBLISHED];
}
