import { refuseBodyId } from '../http/path-id';
import { createRouter, secretKeyProcedure } from '../trpc';
import { createProductInput, deletedProductSchema, deleteProductInput, listProductsInput, productListSchema, productSchema, retrieveProductInput, updateProductInput } from './schemas';
import { createProduct, deleteProduct, getProduct, listProducts, productDeps, updateProduct } from './service';

const TAGS = ['Products'];

/** PATCH and its POST alias: two routes, one operation. */
function updateProcedure(method: 'PATCH' | 'POST', summary: string) {
  return secretKeyProcedure
    .meta({
      openapi: { method, path: '/products/{id}', tags: TAGS, summary, protect: true },
      writeLimit: 'product',
      errors: ['sku_unavailable'],
    })
    .input(updateProductInput)
    .output(productSchema)
    .mutation(({ ctx, input: { id, ...body } }) => {
      refuseBodyId(ctx.request.body, 'product');
      return updateProduct(productDeps(ctx), ctx.subject, id, body);
    });
}

export const productsRouter = createRouter({
  // POST /api/v1/products: create a product and its price.
  create: secretKeyProcedure
    .meta({
      openapi: { method: 'POST', path: '/products', tags: TAGS, summary: 'Create a product', protect: true },
      successStatus: 201,
      idempotent: true,
      writeLimit: 'product',
      errors: ['sku_unavailable', 'product_limit_reached'],
    })
    .input(createProductInput)
    .output(productSchema)
    .mutation(({ ctx, input }) => createProduct(productDeps(ctx), ctx.subject, input, ctx.idempotency)),

  // GET /api/v1/products: this store's products in this environment, newest first.
  list: secretKeyProcedure
    .meta({
      openapi: { method: 'GET', path: '/products', tags: TAGS, summary: 'List products', protect: true },
      errors: ['resource_missing'],
    })
    .input(listProductsInput)
    .output(productListSchema)
    .query(({ ctx, input }) => listProducts(ctx, ctx.subject, input)),

  // GET /api/v1/products/{id}: retrieve a product of this store and environment.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/products/{id}', tags: TAGS, summary: 'Retrieve a product', protect: true } })
    .input(retrieveProductInput)
    .output(productSchema)
    .query(({ ctx, input }) => getProduct(ctx, ctx.subject, input.id)),

  // PATCH /api/v1/products/{id}: partial update of a product and its price.
  update: updateProcedure('PATCH', 'Update a product'),

  // POST /api/v1/products/{id}: the same update, for clients that cannot send PATCH.
  updateViaPost: updateProcedure('POST', 'Update a product (POST alias of PATCH)'),

  // DELETE /api/v1/products/{id}: delete a product, guarded by its subscriptions and license keys.
  delete: secretKeyProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/products/{id}', tags: TAGS, summary: 'Delete a product', protect: true },
      writeLimit: 'product',
      errors: ['product_has_active_subscriptions', 'product_has_licenses'],
    })
    .input(deleteProductInput)
    .output(deletedProductSchema)
    .mutation(({ ctx, input }) => deleteProduct(ctx, ctx.subject, input.id, { force: input.force === 'true' })),
});
