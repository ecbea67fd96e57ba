import type { ReactNode } from 'react';
import type { SubscriptionDetail } from '@/server/dashboard/subscriptions';
import { cardText } from '../../checkout/parts';
import { FactList } from '../card';
import { money, utcTime } from '../format';
import { discountOffText } from '@/server/kit/discounts';
import { SubscriptionStatus, subscriptionPrice } from './status';

/** Statuses a cancel has nothing to stop in (the service answers them unchanged). */
export const ENDED_STATUSES = new Set(['canceled', 'expired', 'incomplete']);

const CANCELLATION_TYPES = {
  ordinary: 'Ordinary (end of the current period)',
  // The declaration schedules the period's end like an ordinary one; ending sooner is the store's call.
  extraordinary: 'Extraordinary (as soon as possible): to end it sooner, cancel it below',
} as const;

/** `15% off until …`, `€3.00 off until …`; forever (or before the first charge fixes its end): without an end. */
function discountText(discount: NonNullable<SubscriptionDetail['subscription']['discount']>): string {
  const off = discountOffText({ percentOff: discount.percent_off, amountOff: discount.amount_off }, money);
  return discount.end === null ? off : `${off} until ${utcTime(discount.end)}`;
}

/** The top of a subscription's page: its facts, the card it is charged on, a scheduled end or plan change, its credit and the customer's declaration. */
export function SubscriptionSummary({ base, detail }: { base: string; detail: SubscriptionDetail }) {
  const { subscription } = detail;
  const { card, cancellation, pending_change: pending } = subscription;
  const endScheduled = subscription.cancel_at_period_end && subscription.cancel_at !== null && !ENDED_STATUSES.has(subscription.status);
  const rows: [string, ReactNode][] = [
    ['Status', <SubscriptionStatus status={subscription.status} />],
    ['Plan', detail.plan_name || '—'],
    ['Price', subscriptionPrice(subscription)],
    ['Payments', `${detail.payments_made} of ${subscription.total_payments}`],
    ['Card', card ? cardText(card.brand, card.last4) : '—'],
    ...(subscription.trial_start !== null && subscription.trial_end !== null ? [['Trial', `${utcTime(subscription.trial_start)} – ${utcTime(subscription.trial_end)}`] as [string, ReactNode]] : []),
    ...(subscription.discount ? [['Discount', discountText(subscription.discount)] as [string, ReactNode]] : []),
    ['Current period', `${utcTime(subscription.current_period_start)} – ${utcTime(subscription.current_period_end)}`],
    ['Next billing', ENDED_STATUSES.has(subscription.status) || endScheduled ? '—' : utcTime(subscription.next_billing_at)],
    ...(endScheduled ? [['Ends on', utcTime(subscription.cancel_at!)] as [string, ReactNode]] : []),
    ...(pending ? [['Scheduled change', `${pending.plan_name}: ${subscriptionPrice(pending)} from ${utcTime(pending.effective_at)}`] as [string, ReactNode]] : []),
    ['Credit', money(subscription.credit_balance)],
    [
      'Customer',
      <>
        {subscription.customer_email}
        {subscription.customer_id && (
          <a href={`${base}/customers/${subscription.customer_id}`} className="dash-mono dash-block">
            {subscription.customer_id}
          </a>
        )}
      </>,
    ],
    ['Product', subscription.product_id ? <span className="dash-mono">{subscription.product_id}</span> : '—'],
    ['Created', utcTime(subscription.created)],
    ...(cancellation
      ? ([
          ['Cancellation declared', utcTime(cancellation.declared_at)],
          ['Cancellation type', CANCELLATION_TYPES[cancellation.type]],
          ['Customer’s reason', cancellation.reason ?? '—'],
        ] as [string, ReactNode][])
      : []),
    ['Canceled', subscription.canceled_at === null ? '—' : utcTime(subscription.canceled_at)],
    ['Cancel reason', detail.cancel_reason ?? '—'],
  ];
  return <FactList rows={rows} />;
}
