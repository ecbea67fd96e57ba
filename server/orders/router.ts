import { createRouter, secretKeyProcedure } from '../trpc';
import { orderSchema, retrieveOrderInput } from './schemas';
import { getOrder } from './service';

export const ordersRouter = createRouter({
  // GET /api/v1/orders/{id}: an order with its lines, amounts, refunds and license keys.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/orders/{id}', tags: ['Orders'], summary: 'Retrieve an order', protect: true } })
    .input(retrieveOrderInput)
    .output(orderSchema)
    .query(({ ctx, input }) => getOrder(ctx.db, ctx.subject, input.id)),
});
