import type { SubscriptionObject } from '@/server/subscriptions/representation';
import { money, utcTime } from '../format';
import type { Column } from '../list-table';
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

/** A subscriptions list's columns; `withCustomer` for lists of several customers. */
export function subscriptionColumns(base: string, { withCustomer }: { withCustomer: boolean }): Column<SubscriptionObject>[] {
  return [
    {
      label: 'Subscription',
      cell: (subscription) => (
        <a href={`${base}/subscriptions/${subscription.id}`} className="dash-mono">
          {subscription.id}
        </a>
      ),
    },
    { label: 'Created', nowrap: true, cell: (subscription) => utcTime(subscription.created) },
    ...(withCustomer ? [{ label: 'Customer', cell: (subscription: SubscriptionObject) => subscription.customer_email }] : []),
    { label: 'Status', cell: (subscription) => <SubscriptionStatus status={subscription.status} /> },
    { label: 'Price', numeric: true, cell: (subscription) => subscriptionPrice(subscription) },
  ];
}
