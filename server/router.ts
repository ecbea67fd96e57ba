import { checkoutRouter } from './checkout/router';
import { productsRouter } from './products/router';
import { testClockRouter } from './test-clock/router';
import { createRouter } from './trpc';

/** The public API: every procedure here carries OpenAPI meta and is served under /api/v1. */
export const appRouter = createRouter({
  products: productsRouter,
  checkout: checkoutRouter,
  testHelpers: testClockRouter,
});

export type AppRouter = typeof appRouter;
