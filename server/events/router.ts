import { createRouter, secretKeyProcedure } from '../trpc';
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
});
