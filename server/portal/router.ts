import type { Subject } from '../auth/service';
import { readIdempotencyKey } from '../kit/idempotency';
import { storeClock } from '../clock';
import type { Context } from '../context';
import { createRouter, secretKeyProcedure } from '../trpc';
import { createPortalSessionInput, portalSessionSchema, retrievePortalSessionInput, revokePortalSessionInput } from './schemas';
import { createPortalSession, getPortalSession, revokePortalSession, type PortalDeps } from './service';

const TAGS = ['Portal'];

const deps = (ctx: Context & { subject: Subject }): PortalDeps => ({
  db: ctx.db,
  clock: storeClock(ctx.clock, ctx.subject),
  config: ctx.config,
});

/** The `Idempotency-Key` format is checked with the credentials, before the body (as on checkout). */
const createProcedure = secretKeyProcedure.use(({ ctx, next }) => {
  readIdempotencyKey(ctx.request.headers);
  return next();
});

export const portalRouter = createRouter({
  // POST /api/v1/portal/sessions: a read-only portal link for a customer, an order or a subscription.
  create: createProcedure
    .meta({
      openapi: { method: 'POST', path: '/portal/sessions', tags: TAGS, summary: 'Create a portal session', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: ['metadata_invalid', 'resource_missing'],
    })
    .input(createPortalSessionInput)
    .output(portalSessionSchema)
    .mutation(async ({ ctx, input }) => {
      const { session, replayed } = await createPortalSession(deps(ctx), ctx.subject, input, {
        idempotencyKey: readIdempotencyKey(ctx.request.headers),
        rawBody: ctx.request.body,
      });
      if (replayed) ctx.request.successStatus = 200;
      return session;
    }),

  // GET /api/v1/portal/sessions/{id}: status and access counts; never the URL.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/portal/sessions/{id}', tags: TAGS, summary: 'Retrieve a portal session', protect: true } })
    .input(retrievePortalSessionInput)
    .output(portalSessionSchema)
    .query(({ ctx, input }) => getPortalSession(deps(ctx), ctx.subject, input.id)),

  // DELETE /api/v1/portal/sessions/{id}: revoke for good; the link stops resolving on the next request.
  revoke: secretKeyProcedure
    .meta({ openapi: { method: 'DELETE', path: '/portal/sessions/{id}', tags: TAGS, summary: 'Revoke a portal session', protect: true } })
    .input(revokePortalSessionInput)
    .output(portalSessionSchema)
    .mutation(({ ctx, input }) => revokePortalSession(deps(ctx), ctx.subject, input.id)),
});
