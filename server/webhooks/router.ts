import { refuseBodyId } from '../http/path-id';
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
  rolledEndpointSchema,
  rollSecretInput,
  updateEndpointInput,
} from './schemas';
import { createEndpoint, deleteEndpoint, getEndpoint, listDeliveries, listEndpoints, rollEndpointSecret, updateEndpoint } from './service';

const TAGS = ['Webhooks'];

/** PATCH and its POST alias: two routes, one operation. */
function updateProcedure(method: 'PATCH' | 'POST', summary: string) {
  return secretKeyProcedure
    .meta({ openapi: { method, path: '/webhook_endpoints/{id}', tags: TAGS, summary, protect: true } })
    .input(updateEndpointInput)
    .output(endpointSchema)
    .mutation(({ ctx, input: { id, ...body } }) => {
      refuseBodyId(ctx.request.body, 'webhook endpoint');
      return updateEndpoint(ctx, ctx.subject, id, body);
    });
}

export const webhooksRouter = createRouter({
  // POST /api/v1/webhook_endpoints: register a receiver; the answer carries its signing secret.
  create: secretKeyProcedure
    .meta({
      openapi: { method: 'POST', path: '/webhook_endpoints', tags: TAGS, summary: 'Create a webhook endpoint', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: ['webhook_endpoint_limit_reached'],
    })
    .input(createEndpointInput)
    .output(createdEndpointSchema)
    .mutation(({ ctx, input }) => createEndpoint(ctx, ctx.subject, input, ctx.idempotency)),

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

  // PATCH /api/v1/webhook_endpoints/{id}: change its url or events, disable or enable it.
  update: updateProcedure('PATCH', 'Update a webhook endpoint'),

  // POST /api/v1/webhook_endpoints/{id}: the same update, for clients that cannot send PATCH.
  updateViaPost: updateProcedure('POST', 'Update a webhook endpoint (POST alias of PATCH)'),

  // POST /api/v1/webhook_endpoints/{id}/roll_secret: a new secret; the old one also signs for a while.
  rollSecret: secretKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/webhook_endpoints/{id}/roll_secret',
        tags: TAGS,
        summary: 'Roll the signing secret of a webhook endpoint',
        description:
          'Answers the endpoint with its new `secret`. Until `previous_secret_expires_at` every delivery is signed with both secrets, new first (`webhook-signature: v1,<new> v1,<old>`); an older secret stops signing at once.',
        protect: true,
      },
    })
    .input(rollSecretInput)
    .output(rolledEndpointSchema)
    .mutation(({ ctx, input }) => rollEndpointSecret(ctx, ctx.subject, input.id, input.expires_in, ctx.clock.now())),

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
    .mutation(({ ctx, input }) => deleteEndpoint(ctx, ctx.subject, input.id)),
});
