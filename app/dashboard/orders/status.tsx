import type { Order } from '@/server/orders/schemas';

/** An order's status as a coloured badge (its colour picked by `data-status` in the CSS). */
export function OrderStatus({ status }: { status: Order['status'] }) {
  return (
    <span className="dash-status" data-status={status}>
      {status}
    </span>
  );
}
