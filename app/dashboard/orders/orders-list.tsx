import { notFound, redirect } from 'next/navigation';
import { ORDER_STATUSES } from '@/db/schema';
import { getAppServices } from '@/server/app';
import { ApiError } from '@/server/errors';
import { getOrder, listOrders } from '@/server/orders/service';
import { can } from '@/server/users/roles';
import { dashboardBase, type DashboardMode } from '../access';
import { listQueryString } from '../list-query';
import { DateRangeFields, ListTable } from '../list-table';
import { DashboardShell, storePage } from '../shell';
import { readOrdersQuery, type OrdersQuery, type SearchParams } from './query';
import { orderColumns } from './status';

const PAGE_SIZE = 25;

const isMissing = (error: unknown) => error instanceof ApiError && error.code === 'resource_missing';

function Filters({ base, form }: { base: string; form: OrdersQuery['form'] }) {
  return (
    <form method="get" action={`${base}/orders`} className="dash-filters" role="search">
      <div className="dash-field dash-field-wide">
        <label htmlFor="orders-q">Search</label>
        <input id="orders-q" name="q" type="search" defaultValue={form.q} placeholder="ord_… or e-mail" maxLength={254} />
      </div>
      <div className="dash-field">
        <label htmlFor="orders-status">Status</label>
        <select id="orders-status" name="status" defaultValue={form.status || 'all'}>
          <option value="all">all</option>
          {ORDER_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <DateRangeFields idPrefix="orders" from={form.from} to={form.to} />
      <button type="submit">Apply</button>
    </form>
  );
}

/** The store's orders of one mode, newest first, 25 a page, filtered by the query string. */
export async function OrdersPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/orders');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const { db } = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const query = readOrdersQuery(searchParams);
  let problem = query.problem;
  if (!problem && query.orderId) {
    const found = await getOrder(db, scope, query.orderId).then(
      (order) => order.id,
      (error: unknown) => {
        if (isMissing(error)) return undefined;
        throw error;
      },
    );
    if (found) redirect(`${base}/orders/${found}`);
    problem = 'No order found';
  }
  const startingAfter = typeof searchParams.starting_after === 'string' ? searchParams.starting_after : undefined;
  const list = problem
    ? undefined
    : await listOrders(db, scope, { ...query.filters, limit: PAGE_SIZE, starting_after: startingAfter }).catch((error: unknown) => {
        // A cursor of another store, mode or list: the page does not exist.
        if (isMissing(error)) notFound();
        throw error;
      });
  const filtered = Object.values(query.form).some((value) => value !== '' && value !== 'all');
  return (
    <DashboardShell access={access} mode={mode} path="/orders">
      <section className="dash-card">
        <div className="dash-heading">
          <h1>Orders</h1>
          {can(current.role, 'export') && list && (
            <a className="dash-button-link" href={`${base}/orders.csv${listQueryString(query.form)}`}>
              Export CSV
            </a>
          )}
        </div>
        <Filters base={base} form={query.form} />
        {problem && (
          <p role="alert" className="dash-alert">
            {problem}
          </p>
        )}
        {list && list.data.length === 0 && <p className="dash-muted">{filtered || startingAfter ? 'No orders match these filters.' : 'No orders yet.'}</p>}
        {list && list.data.length > 0 && <ListTable columns={orderColumns(base, { withCustomer: true })} rows={list.data} />}
        {list?.has_more && (
          <p className="dash-pager">
            <a href={`${base}/orders${listQueryString(query.form, { starting_after: list.data.at(-1)!.id })}`}>Next page</a>
          </p>
        )}
      </section>
    </DashboardShell>
  );
}
