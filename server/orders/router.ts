import { createRouter, secretKeyProcedure } from '../trpc';
import { listOrdersInput, orderListSchema, orderSchema, retrieveOrderInput } from './schemas';
import { getOrder, listOrders } from './service';

const TAGS = ['Orders'];

export const ordersRouter = createRouter({
  // GET /api/v1/orders: this store's orders in this environment, newest first.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/orders', tags: TAGS, summary: 'List orders', protect: true }, errors: ['resource_missing'] })
    .input(listOrdersInput)
    .output(orderListSchema)
    .query(({ ctx, input }) => listOrders(ctx.db, ctx.subject, input)),

  // GET /api/v1/orders/{id}: an order with its lines, amounts, refunds and license keys.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/orders/{id}', tags: TAGS, summary: 'Retrieve an order', protect: true } })
    .input(retrieveOrderInput)
    .output(orderSchema)
    .query(({ ctx, input }) => getOrder(ctx.db, ctx.subject, input.id)),
});
