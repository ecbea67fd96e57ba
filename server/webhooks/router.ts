import { readIdempotencyKey } from '../kit/idempotency';
import { storeClock } from '../clock';
import { createRouter, secretKeyProcedure } from '../trpc';
import {
  createdEndpointSchema,
  createEndpointInput,
  deletedEndpointSchema,
  deleteEndpointInput,
  deliveryListSchema,
  endpointListSchema,
  endpointSchema,
  listDeliveriesInput,
  listEndpointsInput,
  retrieveEndpointInput,
} from './schemas';
import { createEndpoint, deleteEndpoint, getEndpoint, listDeliveries, listEndpoints } from './service';

const TAGS = ['Webhooks'];

export const webhooksRouter = createRouter({
  // POST /api/v1/webhook_endpoints: register a receiver; the answer carries its signing secret, once.
  create: secretKeyProcedure
    .use(({ ctx, next }) => {
      // The key's format is judged before the body, as on every idempotent create.
      readIdempotencyKey(ctx.request.headers);
      return next();
    })
    .meta({
      openapi: { method: 'POST', path: '/webhook_endpoints', tags: TAGS, summary: 'Create a webhook endpoint', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: ['webhook_endpoint_limit_reached'],
    })
    .input(createEndpointInput)
    .output(createdEndpointSchema)
    .mutation(async ({ ctx, input }) => {
      const { endpoint, replayed } = await createEndpoint({ db: ctx.db, clock: storeClock(ctx.clock, ctx.subject), config: ctx.config }, ctx.subject, input, {
        idempotencyKey: readIdempotencyKey(ctx.request.headers),
        rawBody: ctx.request.body,
      });
      if (replayed) ctx.request.successStatus = 200;
      return endpoint;
    }),

  // GET /api/v1/webhook_endpoints: this store's endpoints in this environment, newest first.
  list: secretKeyProcedure
    .meta({
      openapi: { method: 'GET', path: '/webhook_endpoints', tags: TAGS, summary: 'List webhook endpoints', protect: true },
      errors: ['resource_missing'],
    })
    .input(listEndpointsInput)
    .output(endpointListSchema)
    .query(({ ctx, input }) => listEndpoints(ctx.db, ctx.subject, input)),

  // GET /api/v1/webhook_endpoints/{id}: one endpoint (without its secret).
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/webhook_endpoints/{id}', tags: TAGS, summary: 'Retrieve a webhook endpoint', protect: true } })
    .input(retrieveEndpointInput)
    .output(endpointSchema)
    .query(({ ctx, input }) => getEndpoint(ctx.db, ctx.subject, input.id)),

  // GET /api/v1/webhook_endpoints/{id}/deliveries: the delivery log, each delivery with its attempts.
  deliveries: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/webhook_endpoints/{id}/deliveries', tags: TAGS, summary: 'List the deliveries of a webhook endpoint', protect: true } })
    .input(listDeliveriesInput)
    .output(deliveryListSchema)
    .query(({ ctx, input: { id, ...query } }) => listDeliveries(ctx.db, ctx.subject, id, query)),

  // DELETE /api/v1/webhook_endpoints/{id}: stop sending to it; its pending deliveries are given up.
  delete: secretKeyProcedure
    .meta({ openapi: { method: 'DELETE', path: '/webhook_endpoints/{id}', tags: TAGS, summary: 'Delete a webhook endpoint', protect: true } })
    .input(deleteEndpointInput)
    .output(deletedEndpointSchema)
    .mutation(({ ctx, input }) => deleteEndpoint(ctx.db, ctx.subject, input.id, ctx.clock.now())),
});
