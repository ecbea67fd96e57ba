import type { Dispute } from '@/server/disputes/schemas';
import { money, utcTime } from '../format';
import type { Column } from '../list-table';
import './disputes.css';

/** Why the cardholder disputed, in the merchant's words. */
export const REASON_LABELS: Record<Dispute['reason'], string> = {
  fraudulent: 'Fraudulent',
  product_not_received: 'Product not received',
  duplicate: 'Duplicate',
  subscription_canceled: 'Subscription canceled',
  unrecognized: 'Unrecognized',
  general: 'General',
};

/** A dispute's status as a coloured badge (its colour picked by `data-status` in the CSS). */
export function DisputeStatus({ status }: { status: Dispute['status'] }) {
  return (
    <span className="dash-status" data-status={status}>
      {status}
    </span>
  );
}

/** The deadline a dispute waiting for evidence must be answered by; nothing once evidence was submitted or it closed. */
export function RespondBy({ dispute }: { dispute: Dispute }) {
  if (dispute.status !== 'needs_response') return null;
  return (
    <span className="dash-block dash-respond-by">
      Respond by <span className="dash-nowrap">{utcTime(dispute.evidence_due_by)}</span>
    </span>
  );
}

/** The Disputes list's columns: each dispute links to its order, and says its deadline while it waits for evidence. */
export function disputeColumns(base: string): Column<Dispute>[] {
  return [
    {
      label: 'Order',
      cell: (dispute) => (
        <a href={`${base}/orders/${dispute.order_id}`} className="dash-mono">
          {dispute.order_id}
        </a>
      ),
    },
    { label: 'Created', nowrap: true, cell: (dispute) => utcTime(dispute.created) },
    { label: 'Reason', cell: (dispute) => REASON_LABELS[dispute.reason] },
    {
      label: 'Status',
      cell: (dispute) => (
        <>
          <DisputeStatus status={dispute.status} />
          <RespondBy dispute={dispute} />
        </>
      ),
    },
    { label: 'Amount', numeric: true, cell: (dispute) => money(dispute.amount) },
  ];
}
