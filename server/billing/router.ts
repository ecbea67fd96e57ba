import { refuseBodyId } from '../http/path-id';
import { createRouter } from '../trpc';
import { gatedProcedure } from '../subscriptions/gate';
import { changeSubscriptionInput, subscriptionSchema } from '../subscriptions/schemas';
import { changeSubscriptionPlan } from './plan-change';

/** Subscription operations that charge the card on file, served under /subscriptions with the others. */
export const subscriptionBillingRouter = createRouter({
  // POST /api/v1/subscriptions/{id}/change: a new plan, now (prorated) or at the next renewal.
  change: gatedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/subscriptions/{id}/change',
        tags: ['Subscriptions'],
        summary: 'Change a subscription’s plan',
        description:
          'Body: `price_id` (a recurring price) or `amount` with `interval`, `interval_count` and `plan_name` (kept when left out; `price_id` and `product_id` become null), and `proration`. `prorate_now` (default): the unused time of the old plan is credited and the remaining time of the new one charged, the same share of the period when the interval stays (the period is kept), else the whole new plan (its periods count from now); what is left to pay is charged at once on the card on file and invoiced, what is left over goes into `credit_balance`. A trial changes plan without a charge. `next_period`: the change waits in `pending_change` for the renewal at the end of the period, which charges the new plan. Emits `subscription.updated`. 400 `parameter_invalid` for the plan the subscription is on; 409 `subscription_not_active` unless it is `active` or `trialing` without a scheduled end; 409 `session_payment_in_progress` while a charge of it is being processed; 402 `card_declined` (nothing changed); 500 `payment_outcome_unknown` (the change applies once the gateway confirms the charge).',
        protect: true,
      },
      idempotent: true,
      errors: [
        'feature_unavailable',
        'capability_disabled',
        'resource_missing',
        'price_inactive',
        'price_mode_unsupported',
        'subscription_not_active',
        'session_payment_in_progress',
        'card_declined',
        'payment_outcome_unknown',
      ],
    })
    .input(changeSubscriptionInput)
    .output(subscriptionSchema)
    .mutation(({ ctx, input }) => {
      refuseBodyId(ctx.request.body, 'subscription');
      const { id, ...change } = input;
      return changeSubscriptionPlan({ ...ctx, clock: ctx.wallClock }, ctx.subject, id, change, ctx.idempotency);
    }),
});
