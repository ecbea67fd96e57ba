import { productsRouter } from './products/router';
import { createRouter } from './trpc';

/** The public API: every procedure here carries OpenAPI meta and is served under /api/v1. */
export const appRouter = createRouter({
  products: productsRouter,
});

export type AppRouter = typeof appRouter;
