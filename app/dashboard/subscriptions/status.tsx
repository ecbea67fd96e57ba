import type { SubscriptionObject } from '@/server/subscriptions/representation';
import { money } from '../format';
import './subscriptions.css';

/** A subscription's status as a coloured badge (its colour picked by `data-status` in the CSS). */
export function SubscriptionStatus({ status }: { status: SubscriptionObject['status'] }) {
  return (
    <span className="dash-status" data-status={status}>
      {status}
    </span>
  );
}

/** `€9.90 / month`, `€30.00 / 3 months`. */
export function subscriptionPrice(subscription: Pick<SubscriptionObject, 'amount' | 'interval' | 'interval_count'>): string {
  const every = subscription.interval_count === 1 ? subscription.interval : `${subscription.interval_count} ${subscription.interval}s`;
  return `${money(subscription.amount)} / ${every}`;
}
