import type { Order } from '@/server/orders/schemas';
import { money, utcTime } from '../format';
import type { Column } from '../list-table';

/** An order's status as a coloured badge (its colour picked by `data-status` in the CSS). */
export function OrderStatus({ status }: { status: Order['status'] }) {
  return (
    <span className="dash-status" data-status={status}>
      {status}
    </span>
  );
}

/** An orders list's columns; `withCustomer` for lists of several customers. */
export function orderColumns(base: string, { withCustomer }: { withCustomer: boolean }): Column<Order>[] {
  return [
    {
      label: 'Order',
      cell: (order) => (
        <a href={`${base}/orders/${order.id}`} className="dash-mono">
          {order.id}
        </a>
      ),
    },
    { label: 'Created', nowrap: true, cell: (order) => utcTime(order.created) },
    ...(withCustomer ? [{ label: 'Customer', cell: (order: Order) => order.customer_email ?? '—' }] : []),
    { label: 'Status', cell: (order) => <OrderStatus status={order.status} /> },
    { label: 'Total', numeric: true, cell: (order) => money(order.amount_total) },
  ];
}
