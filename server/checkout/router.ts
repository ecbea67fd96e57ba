import { ApiError } from '../errors';
import { checkoutSecretKeyProcedure, createRouter, publishableKeyProcedure } from '../trpc';
import {
  checkoutSessionListSchema,
  checkoutSessionModes,
  checkoutSessionSchema,
  confirmCheckoutSessionInput,
  createCheckoutSessionInput,
  createdCheckoutSessionSchema,
  expireCheckoutSessionInput,
  expiredCheckoutSessionSchema,
  listCheckoutSessionsInput,
  retrieveCheckoutSessionInput,
} from './schemas';
import { confirmCheckoutSession, createCheckoutSession, expireCheckoutSession, getCheckoutSession, listCheckoutSessions } from './service';

const TAGS = ['Checkout sessions'];

/**
 * Runs after the key and its `Idempotency-Key` and before the body is validated
 * (server/checkout/schemas.ts, check order): a body containing
 * `amount` in a store without amount mode is `amount_mode_unsupported`, whatever else it holds.
 */
const createProcedure = checkoutSecretKeyProcedure.use(({ ctx, next }) => {
  const body = ctx.request.body;
  if (!ctx.subject.flags.amountMode && typeof body === 'object' && body !== null && Object.hasOwn(body, 'amount')) {
    throw new ApiError('amount_mode_unsupported', 'Amount mode is not enabled for this account: sell catalog prices with `price_id` or `line_items`, or ask for the amount-mode permission.', {
      param: 'amount',
    });
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
      documentedBody: checkoutSessionModes,
      errors: [
        'invalid_success_url',
        'invalid_cancel_url',
        'price_inactive',
        'price_mode_unsupported',
        'currency_unsupported',
        'amount_mode_unsupported',
        'metadata_invalid',
        'resource_missing',
        'discount_invalid',
      ],
    })
    .input(createCheckoutSessionInput)
    .output(createdCheckoutSessionSchema)
    .mutation(({ ctx, input }) => createCheckoutSession(ctx, ctx.subject, input, ctx.idempotency)),

  // GET /api/v1/checkout/sessions/{id}: the session as it is now; expired once past its deadline.
  retrieve: checkoutSecretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/checkout/sessions/{id}', tags: TAGS, summary: 'Retrieve a checkout session', protect: true } })
    .input(retrieveCheckoutSessionInput)
    .output(checkoutSessionSchema)
    .query(({ ctx, input }) => getCheckoutSession(ctx, ctx.subject, input.id)),

  // GET /api/v1/checkout/sessions: this store's sessions in this environment, newest first.
  list: checkoutSecretKeyProcedure
    .meta({
      openapi: { method: 'GET', path: '/checkout/sessions', tags: TAGS, summary: 'List checkout sessions', protect: true },
      errors: ['resource_missing'],
    })
    .input(listCheckoutSessionsInput)
    .output(checkoutSessionListSchema)
    .query(({ ctx, input }) => listCheckoutSessions(ctx, ctx.subject, input)),

  // POST /api/v1/checkout/sessions/{id}/expire: end an open session now; its link stops working.
  expire: checkoutSecretKeyProcedure
    .meta({
      openapi: { method: 'POST', path: '/checkout/sessions/{id}/expire', tags: TAGS, summary: 'Expire a checkout session', protect: true },
      errors: ['session_already_complete', 'session_payment_in_progress'],
    })
    .input(expireCheckoutSessionInput)
    .output(expiredCheckoutSessionSchema)
    .mutation(({ ctx, input }) => expireCheckoutSession(ctx, ctx.subject, input.id)),

  // POST /api/v1/checkout/sessions/{id}/confirm: embedded confirmation, always refused.
  confirm: publishableKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/checkout/sessions/{id}/confirm',
        tags: TAGS,
        summary: 'Confirm a checkout session (embedded)',
        description:
          'Uses a publishable key and the session’s `client_secret`. Always refused with `three_d_secure_required` once the session is checked: the card is entered on the hosted page. Amount fields sent here are ignored. Each call is a card attempt of its client address, as a post of the hosted payment forms is: once the address has had too many declines there (`RATE_LIMIT_PAY_PER_IP`, 50 per 10 minutes by default) or ten times as many attempts, 429 `rate_limited` with `Retry-After`.',
        successDescription: 'Not answered today: every confirmation that passes the checks is refused with 400 `three_d_secure_required`.',
        protect: true,
      },
      errors: ['invalid_client_secret', 'environment_mismatch', 'session_expired', 'session_already_complete', 'session_payment_failed', 'three_d_secure_required'],
    })
    .input(confirmCheckoutSessionInput)
    .output(checkoutSessionSchema)
    .mutation(({ ctx, input }) => confirmCheckoutSession(ctx, ctx.subject, ctx.request, input.id, input.client_secret)),
});
