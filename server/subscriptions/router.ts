import { refuseBodyId } from '../http/path-id';
import { apiErrorFromZod } from '../http/zod-errors';
import { createRouter, secretKeyProcedure } from '../trpc';
import { gatedProcedure } from './gate';
import { createSubscriptionCheckout, getSubscriptionCheckout } from './checkouts';
import {
  cancelSubscriptionBody,
  cancelSubscriptionInput,
  canceledSubscriptionSchema,
  createSubscriptionInput,
  listSubscriptionsInput,
  retrieveSubscriptionCheckoutInput,
  retrieveSubscriptionInput,
  subscriptionCheckoutSchema,
  subscriptionListSchema,
  subscriptionSchema,
  paymentMethodLinkSchema,
  updatePaymentMethodLinkInput,
  updateSubscriptionInput,
} from './schemas';
import { createPaymentMethodLink } from './payment-method-link';
import { cancelSubscription, getSubscription, listSubscriptions, updateSubscription } from './service';

const TAGS = ['Subscriptions'];

export const subscriptionsRouter = createRouter({
  // POST /api/v1/subscriptions: a subscription checkout (hosted link) for a recurring price or a plan.
  create: gatedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/subscriptions',
        tags: TAGS,
        summary: 'Create a subscription checkout',
        description:
          'Answers a subscription checkout whose `url` is the hosted page where the customer enters a card. Provide exactly one of `price_id` (a recurring price) or `amount` (plan mode, with `interval` and `plan_name`). 503 `feature_unavailable` while subscriptions are switched off on the platform; 403 `capability_disabled` for an account without subscriptions.',
        protect: true,
      },
      successStatus: 201,
      idempotent: true,
      errors: [
        'feature_unavailable',
        'capability_disabled',
        'invalid_success_url',
        'price_inactive',
        'price_mode_unsupported',
        'currency_unsupported',
        'metadata_invalid',
        'resource_missing',
        'discount_invalid',
        'trial_already_used',
      ],
    })
    .input(createSubscriptionInput)
    .output(subscriptionCheckoutSchema)
    .mutation(({ ctx, input }) => createSubscriptionCheckout(ctx, ctx.subject, input, ctx.idempotency)),

  // GET /api/v1/subscriptions/checkout/{id}: the checkout as it is now; expired once past its deadline.
  retrieveCheckout: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/subscriptions/checkout/{id}', tags: TAGS, summary: 'Retrieve a subscription checkout', protect: true } })
    .input(retrieveSubscriptionCheckoutInput)
    .output(subscriptionCheckoutSchema)
    .query(({ ctx, input }) => getSubscriptionCheckout(ctx, ctx.subject, input.id)),

  // GET /api/v1/subscriptions: this store's subscriptions in this environment, newest first.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/subscriptions', tags: TAGS, summary: 'List subscriptions', protect: true }, errors: ['resource_missing'] })
    .input(listSubscriptionsInput)
    .output(subscriptionListSchema)
    .query(({ ctx, input }) => listSubscriptions(ctx, ctx.subject, input)),

  // GET /api/v1/subscriptions/{id}: one subscription.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/subscriptions/{id}', tags: TAGS, summary: 'Retrieve a subscription', protect: true } })
    .input(retrieveSubscriptionInput)
    .output(subscriptionSchema)
    .query(({ ctx, input }) => getSubscription(ctx, ctx.subject, input.id)),

  // POST /api/v1/subscriptions/{id}: replace the metadata (the only mutable field).
  update: secretKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/subscriptions/{id}',
        tags: TAGS,
        summary: 'Update a subscription’s metadata',
        description: 'Body `{ metadata }`: the sent object replaces the stored one. Amount and schedule cannot change: cancel and create a new subscription. Emits `subscription.updated`.',
        protect: true,
      },
      errors: ['metadata_invalid'],
    })
    .input(updateSubscriptionInput)
    .output(subscriptionSchema)
    .mutation(({ ctx, input }) => {
      refuseBodyId(ctx.request.body, 'subscription');
      return updateSubscription(ctx, ctx.subject, input.id, input.metadata);
    }),

  // POST /api/v1/subscriptions/{id}/update_payment_method_link: a fresh signed link to the page that takes a new card.
  updatePaymentMethodLink: gatedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/subscriptions/{id}/update_payment_method_link',
        tags: TAGS,
        summary: 'Create a link to update the payment method',
        description:
          'Answers `{ url, expires_at }`: a signed page, for this subscription only and reusable for seven days, where the customer enters a new card. The card is checked without moving money; a `past_due` subscription is charged what it owes at once on the new card and is `active` again when that is approved. 409 `subscription_not_active` unless the subscription is `trialing`, `active` or `past_due`.',
        protect: true,
      },
      errors: ['feature_unavailable', 'capability_disabled', 'subscription_not_active'],
    })
    .input(updatePaymentMethodLinkInput)
    .output(paymentMethodLinkSchema)
    .mutation(({ ctx, input }) => createPaymentMethodLink(ctx, ctx.subject, input.id)),

  // DELETE /api/v1/subscriptions/{id}: cancel now, a scheduled end too; the gateway contract first.
  cancel: gatedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/subscriptions/{id}',
        tags: TAGS,
        summary: 'Cancel a subscription',
        description:
          'Optional JSON body `{ "reason": "…" }`, kept for the audit trail. Cancels the recurring contract at the payment gateway, then marks the subscription `canceled` (effective immediately, no proration) and emits `subscription.canceled`. This ends it now also when an end is already scheduled (`cancel_at_period_end`, as a cancellation the customer declared leaves it): ending an extraordinary cancellation sooner is this call. A subscription that is already `canceled`, `expired` or `incomplete` is answered unchanged. 409 `subscription_pending` while its first payment is still being confirmed.',
        protect: true,
      },
      errors: ['feature_unavailable', 'capability_disabled', 'subscription_pending'],
    })
    .input(cancelSubscriptionInput)
    .output(canceledSubscriptionSchema)
    .mutation(({ ctx, input }) => {
      const body = cancelSubscriptionBody.safeParse(ctx.request.body);
      if (!body.success) throw apiErrorFromZod(body.error);
      const gateway = ctx.gateways[ctx.subject.livemode ? 'live' : 'test'];
      return cancelSubscription({ ...ctx, gateway }, ctx.subject, input.id, body.data?.reason);
    }),
});
