import { getAppServices } from '@/server/app';
import { scopeClock } from '@/server/dashboard/service';
import { listWithdrawalRequests, type WithdrawalRequest } from '@/server/orders/withdrawals/service';
import { dashboardBase, type DashboardMode } from '../access';
import { money, utcTime } from '../format';
import type { SearchParams } from '../list-query';
import { ListTable, type Column } from '../list-table';
import { DashboardShell, storePage } from '../shell';

const PAGE_SIZE = 25;

/** A request's state for the merchant: refunded, still to refund, or past the 14 days. */
function RefundState({ request, now }: { request: WithdrawalRequest; now: Date }) {
  if (request.status === 'refunded') {
    return (
      <span className="dash-status" data-status="refunded">
        refunded
      </span>
    );
  }
  const overdue = request.refundDueBy.getTime() <= now.getTime();
  return (
    <span className="dash-status" data-status={overdue ? 'overdue' : 'requested'}>
      {overdue ? 'refund overdue' : 'to refund'}
    </span>
  );
}

function columns(base: string, now: Date): Column<WithdrawalRequest & { id: string }>[] {
  return [
    {
      label: 'Order',
      cell: (request) => (
        <a href={`${base}/orders/${request.orderId}`} className="dash-mono">
          {request.orderId}
        </a>
      ),
    },
    {
      label: 'Customer',
      cell: (request) => (
        <>
          {request.customerName}
          <span className="dash-muted dash-block">{request.customerEmail}</span>
          {request.reason && <span className="dash-muted dash-block">“{request.reason}”</span>}
        </>
      ),
    },
    { label: 'Requested', cell: (request) => utcTime(Math.floor(request.requestedAt.getTime() / 1000)) },
    { label: 'Refund due by', cell: (request) => utcTime(Math.floor(request.refundDueBy.getTime() / 1000)) },
    {
      label: 'State',
      cell: (request) => (
        <>
          <RefundState request={request} now={now} />
          {request.waived && <span className="dash-muted dash-block">waiver given at checkout</span>}
        </>
      ),
    },
    {
      label: 'Paid',
      numeric: true,
      cell: (request) => (
        <>
          {money(request.amountTotal)}
          {request.amountRefunded > 0 && <span className="dash-muted dash-block">{money(request.amountRefunded)} refunded</span>}
        </>
      ),
    },
  ];
}

/**
 * The store's withdrawal requests of one mode, newest first, 25 a page: each with the date by which
 * the payment must be refunded (14 days after the request, on the store's clock).
 */
export async function WithdrawalsPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/withdrawals');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const services = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const startingAfter = typeof searchParams.starting_after === 'string' ? searchParams.starting_after : undefined;
  const [list, clock] = await Promise.all([listWithdrawalRequests(services.db, scope, { limit: PAGE_SIZE, startingAfter }), scopeClock(services, scope)]);
  const rows = list.rows.map((request) => ({ ...request, id: request.orderId }));
  return (
    <DashboardShell access={access} mode={mode} path="/withdrawals">
      <section className="dash-card">
        <div className="dash-heading">
          <h1>Withdrawals</h1>
        </div>
        <p className="dash-muted">Customers who withdrew from a contract on the withdrawal page. Refund each payment by its date: 14 days after the request.</p>
        {rows.length === 0 ? (
          <p className="dash-muted">{startingAfter ? 'No more withdrawal requests.' : 'No withdrawal requests yet.'}</p>
        ) : (
          <ListTable columns={columns(base, clock.now())} rows={rows} />
        )}
        {list.hasMore && (
          <p className="dash-pager">
            <a href={`${base}/withdrawals?starting_after=${encodeURIComponent(rows.at(-1)!.orderId)}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
