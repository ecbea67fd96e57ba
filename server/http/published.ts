import type { ApiHandler } from './transport';

/**
 * scripts/serve.ts serves /api/v1 itself, without Next's request pipeline, yet with Next's own
 * build of the handler: that build shares the app singleton (server/app.ts) with the pages, and a
 * second copy of the server code (the one tsx loads for serve.ts) would bring classes of its
 * own (ApiError, the gateway errors) that `instanceof` in the pages would not recognize.
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
