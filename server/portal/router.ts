import { createRouter, secretKeyProcedure } from '../trpc';
import {
  createdPortalSessionSchema,
  createPortalSessionInput,
  listPortalSessionsInput,
  portalSessionListSchema,
  portalSessionSchema,
  retrievePortalSessionInput,
  revokedPortalSessionSchema,
  revokePortalSessionInput,
} from './schemas';
import { createPortalSession, getPortalSession, listPortalSessions, revokePortalSession } from './service';

const TAGS = ['Portal'];

export const portalRouter = createRouter({
  // POST /api/v1/portal/sessions: a read-only portal link for a customer, an order or a subscription.
  create: secretKeyProcedure
    .meta({
      openapi: { method: 'POST', path: '/portal/sessions', tags: TAGS, summary: 'Create a portal session', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: ['metadata_invalid', 'resource_missing'],
    })
    .input(createPortalSessionInput)
    .output(createdPortalSessionSchema)
    .mutation(({ ctx, input }) => createPortalSession(ctx, ctx.subject, input, ctx.idempotency)),

  // GET /api/v1/portal/sessions: this store's portal sessions in this environment, newest first; never a URL.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/portal/sessions', tags: TAGS, summary: 'List portal sessions', protect: true }, errors: ['resource_missing'] })
    .input(listPortalSessionsInput)
    .output(portalSessionListSchema)
    .query(({ ctx, input }) => listPortalSessions(ctx, ctx.subject, input)),

  // GET /api/v1/portal/sessions/{id}: status and access counts; never the URL.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/portal/sessions/{id}', tags: TAGS, summary: 'Retrieve a portal session', protect: true } })
    .input(retrievePortalSessionInput)
    .output(portalSessionSchema)
    .query(({ ctx, input }) => getPortalSession(ctx, ctx.subject, input.id)),

  // DELETE /api/v1/portal/sessions/{id}: revoke for good; the link stops resolving on the next request.
  revoke: secretKeyProcedure
    .meta({ openapi: { method: 'DELETE', path: '/portal/sessions/{id}', tags: TAGS, summary: 'Revoke a portal session', protect: true } })
    .input(revokePortalSessionInput)
    .output(revokedPortalSessionSchema)
    .mutation(({ ctx, input }) => revokePortalSession(ctx, ctx.subject, input.id)),
});
