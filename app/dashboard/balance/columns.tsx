import type { BalanceTransaction } from '@/server/balance/schemas';
import type { Payout } from '@/server/payouts/schemas';
import { money, utcTime } from '../format';
import type { Column } from '../list-table';
import './balance.css';

/** A status as a coloured badge (its colour picked by `data-status` in the CSS). */
export function Status({ status }: { status: string }) {
  return (
    <span className="dash-status" data-status={status}>
      {status}
    </span>
  );
}

/** Where an entry comes from: an order or a payout links to its page; an adjustment has no source. */
function Source({ entry, base }: { entry: BalanceTransaction; base: string }) {
  if (!entry.source) return '—';
  const page = entry.source.type === 'order' ? `${base}/orders/${entry.source.id}` : entry.source.type === 'payout' ? `${base}/payouts/${entry.source.id}` : undefined;
  return page ? (
    <a href={page} className="dash-mono dash-wrap">
      {entry.source.id}
    </a>
  ) : (
    <span className="dash-mono dash-wrap">{entry.source.id}</span>
  );
}

/** A list of balance transactions: newest first, amounts signed from the store's side; `withPayout` where they are of several payouts. */
export function entryColumns(base: string, { withPayout }: { withPayout: boolean }): Column<BalanceTransaction>[] {
  const columns: Column<BalanceTransaction>[] = [
    { label: 'Created', nowrap: true, cell: (entry) => utcTime(entry.created) },
    { label: 'Type', cell: (entry) => entry.type },
    { label: 'Description', cell: (entry) => entry.description },
    { label: 'Source', cell: (entry) => <Source entry={entry} base={base} /> },
    { label: 'Amount', numeric: true, cell: (entry) => money(entry.amount) },
    {
      label: 'Status',
      cell: (entry) => (
        <>
          <Status status={entry.status} />
          {entry.status === 'pending' && <span className="dash-muted dash-block dash-nowrap">until {utcTime(entry.available_on)}</span>}
        </>
      ),
    },
  ];
  if (!withPayout) return columns;
  return [
    ...columns,
    {
      label: 'Payout',
      cell: (entry) =>
        entry.payout_id ? (
          <a href={`${base}/payouts/${entry.payout_id}`} className="dash-mono dash-wrap">
            {entry.payout_id}
          </a>
        ) : (
          '—'
        ),
    },
  ];
}

/** A list of payouts, each linking to its page. */
export function payoutColumns(base: string): Column<Payout>[] {
  return [
    {
      label: 'Payout',
      cell: (payout) => (
        <a href={`${base}/payouts/${payout.id}`} className="dash-mono dash-wrap">
          {payout.id}
        </a>
      ),
    },
    { label: 'Created', nowrap: true, cell: (payout) => utcTime(payout.created) },
    { label: 'Amount', numeric: true, cell: (payout) => money(payout.amount) },
    { label: 'Status', cell: (payout) => <Status status={payout.status} /> },
    { label: 'Arrival', nowrap: true, cell: (payout) => (payout.arrival_date === null ? '—' : utcTime(payout.arrival_date)) },
  ];
}
