import type { Subject } from '../auth/service';
import { storeClock } from '../clock';
import type { Context } from '../context';
import { ApiError } from '../errors';
import { checkoutSecretKeyProcedure, createRouter, publishableKeyProcedure } from '../trpc';
import { readIdempotencyKey } from '../kit/idempotency';
import {
  checkoutSessionSchema,
  confirmCheckoutSessionInput,
  createCheckoutSessionInput,
  retrieveCheckoutSessionInput,
} from './schemas';
import { confirmCheckoutSession, createCheckoutSession, getCheckoutSession, type CheckoutDeps } from './service';

const TAGS = ['Checkout sessions'];

const deps = (ctx: Context & { subject: Subject }): CheckoutDeps => ({
  db: ctx.db,
  clock: storeClock(ctx.clock, ctx.subject),
  config: ctx.config,
});

/**
 * Runs after the key and before the body is validated (server/checkout/schemas.ts, check
 * order): the `Idempotency-Key` format, then CONTRACT 3's precedence: a body containing
 * `amount` in a store without amount mode is `amount_mode_unsupported`, whatever else it holds.
 */
const createProcedure = checkoutSecretKeyProcedure.use(({ ctx, next }) => {
  readIdempotencyKey(ctx.request.headers);
  const body = ctx.request.body;
  if (!ctx.subject.flags.amountMode && typeof body === 'object' && body !== null && Object.hasOwn(body, 'amount')) {
    throw new ApiError(
      'amount_mode_unsupported',
      'Amount mode is not enabled for this account: sell catalog prices with `price_id` or `line_items`, or ask for the amount-mode permission.',
      { param: 'amount' },
    );
  }
  return next();
});

export const checkoutRouter = createRouter({
  // POST /api/v1/checkout/sessions: a session for a price, a cart of line items, or a free amount.
  create: createProcedure
    .meta({
      openapi: { method: 'POST', path: '/checkout/sessions', tags: TAGS, summary: 'Create a checkout session', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: [
        'invalid_success_url',
        'invalid_cancel_url',
        'price_inactive',
        'price_mode_unsupported',
        'currency_unsupported',
        'amount_mode_unsupported',
        'metadata_invalid',
        'resource_missing',
      ],
    })
    .input(createCheckoutSessionInput)
    .output(checkoutSessionSchema)
    .mutation(async ({ ctx, input }) => {
      const { session, replayed } = await createCheckoutSession(deps(ctx), ctx.subject, input, {
        idempotencyKey: readIdempotencyKey(ctx.request.headers),
        rawBody: ctx.request.body,
      });
      if (replayed) ctx.request.successStatus = 200;
      return session;
    }),

  // GET /api/v1/checkout/sessions/{id}: the session as it is now; expired once past its deadline.
  retrieve: checkoutSecretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/checkout/sessions/{id}', tags: TAGS, summary: 'Retrieve a checkout session', protect: true } })
    .input(retrieveCheckoutSessionInput)
    .output(checkoutSessionSchema)
    .query(({ ctx, input }) => getCheckoutSession(deps(ctx), ctx.subject, input.id)),

  // POST /api/v1/checkout/sessions/{id}/confirm: embedded confirmation, always refused (spec 4.4).
  confirm: publishableKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/checkout/sessions/{id}/confirm',
        tags: TAGS,
        summary: 'Confirm a checkout session (embedded)',
        description:
          'Uses a publishable key and the session’s `client_secret`. Always refused with `three_d_secure_required` once the session is checked: the card is entered on the hosted page. Amount fields sent here are ignored.',
        successDescription: 'Not answered today: every confirmation that passes the checks is refused with 400 `three_d_secure_required`.',
        protect: true,
      },
      errors: ['invalid_client_secret', 'environment_mismatch', 'session_expired', 'session_already_complete', 'session_payment_failed', 'three_d_secure_required'],
    })
    .input(confirmCheckoutSessionInput)
    .output(checkoutSessionSchema)
    .mutation(({ ctx, input }) => confirmCheckoutSession(deps(ctx), ctx.subject, ctx.request, input.id, input.client_secret)),
});
