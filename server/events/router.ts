import { refuseBodyId } from '../http/path-id';
import { createRouter, secretKeyProcedure } from '../trpc';
import { resendEventInput, resentDeliverySchema } from '../webhooks/schemas';
import { resendEvent } from '../webhooks/service';
import { eventListSchema, eventSchema, listEventsInput, retrieveEventInput } from './schemas';
import { getEvent, listEvents } from './service';

const TAGS = ['Events'];

export const eventsRouter = createRouter({
  // GET /api/v1/events: what happened in this store and environment, newest first.
  list: secretKeyProcedure
    .meta({
      openapi: { method: 'GET', path: '/events', tags: TAGS, summary: 'List events', protect: true },
      errors: ['resource_missing'],
    })
    .input(listEventsInput)
    .output(eventListSchema)
    .query(({ ctx, input }) => listEvents(ctx.db, ctx.subject, input)),

  // GET /api/v1/events/{id}: one event, also when its object has been deleted since.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/events/{id}', tags: TAGS, summary: 'Retrieve an event', protect: true } })
    .input(retrieveEventInput)
    .output(eventSchema)
    .query(({ ctx, input }) => getEvent(ctx.db, ctx.subject, input.id)),

  // POST /api/v1/events/{id}/resend: send a past event to one endpoint again, at once.
  resend: secretKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/events/{id}/resend',
        tags: TAGS,
        summary: 'Resend an event to a webhook endpoint',
        description:
          'A new delivery of the event to the endpoint, sent at once under the same `webhook-id` and listed in its delivery log. A replay of a past event: the ordering of its object neither holds it back nor waits on it.',
        protect: true,
      },
      successStatus: 201,
      idempotent: true,
      errors: ['webhook_endpoint_disabled'],
    })
    .input(resendEventInput)
    .output(resentDeliverySchema)
    .mutation(({ ctx, input }) => {
      refuseBodyId(ctx.request.body, 'event');
      return resendEvent(ctx, ctx.subject, input.id, input.endpoint_id, ctx.idempotency);
    }),
});
