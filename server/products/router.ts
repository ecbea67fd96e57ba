import { z } from 'zod';
import { createRouter, secretKeyProcedure } from '../trpc';
import { createProductInput, productIdParam, productSchema } from './schemas';
import { createProduct, getProduct } from './service';

const TAGS = ['Products'];

const deps = (ctx: { db: import('@/db/client').Database; clock: import('../clock').Clock; config: import('../config').Config }) => ({
  db: ctx.db,
  clock: ctx.clock,
  maxProductsPerStore: ctx.config.maxProductsPerStore,
});

export const productsRouter = createRouter({
  // POST /api/v1/products: create a product and its price.
  create: secretKeyProcedure
    .meta({ openapi: { method: 'POST', path: '/products', tags: TAGS, summary: 'Create a product', protect: true }, successStatus: 201, writeLimit: 'product' })
    .input(createProductInput)
    .output(productSchema)
    .mutation(({ ctx, input }) => createProduct(deps(ctx), ctx.subject, input)),

  // GET /api/v1/products/{id}: retrieve a product of this store and environment.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/products/{id}', tags: TAGS, summary: 'Retrieve a product', protect: true } })
    .input(z.object({ id: productIdParam }))
    .output(productSchema)
    .query(({ ctx, input }) => getProduct(ctx, ctx.subject, input.id)),
});
