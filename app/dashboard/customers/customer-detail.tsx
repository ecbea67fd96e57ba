import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { customerDetail, type CustomerDetail } from '@/server/dashboard/customers';
import { ApiError } from '@/server/errors';
import type { PortalSession } from '@/server/portal/schemas';
import { can } from '@/server/users/roles';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { FactList } from '../card';
import { utcTime } from '../format';
import type { SearchParams } from '../list-query';
import { ListTable } from '../list-table';
import { orderColumns } from '../orders/status';
import { takeRevealed } from '../reveal';
import { DashboardShell, storePage } from '../shell';
import { subscriptionColumns } from '../subscriptions/status';

import './customers.css';

/** The actions' errors, by the code they send back. */
const MESSAGES: Record<string, string> = {
  form_expired: 'This form has expired: reload the page and try again.',
  confirm: 'Tick “I confirm deleting this customer” to delete them.',
  customer_missing: 'This customer no longer exists.',
  portal_missing: 'That portal link is not one of this customer’s.',
};

function Orders({ base, detail }: { base: string; detail: CustomerDetail }) {
  const { orders, customer } = detail;
  if (orders.data.length === 0) return <p className="dash-muted">No orders.</p>;
  return (
    <>
      <ListTable columns={orderColumns(base, { withCustomer: false })} rows={orders.data} />
      {orders.has_more && (
        <p className="dash-pager">
          <a href={`${base}/orders?${new URLSearchParams({ q: customer.email }).toString()}`}>All orders of {customer.email}</a>
        </p>
      )}
    </>
  );
}

function Subscriptions({ base, detail }: { base: string; detail: CustomerDetail }) {
  const { subscriptions, customer } = detail;
  if (subscriptions.data.length === 0) return <p className="dash-muted">No subscriptions.</p>;
  return (
    <>
      <ListTable columns={subscriptionColumns(base, { withCustomer: false })} rows={subscriptions.data} />
      {subscriptions.hasMore && (
        <p className="dash-pager">
          <a href={`${base}/subscriptions?customer=${customer.id}`}>All subscriptions of this customer</a>
        </p>
      )}
    </>
  );
}

function PortalLinks({ detail, mode, mayChange }: { detail: CustomerDetail; mode: DashboardMode; mayChange: boolean }) {
  if (detail.portalSessions.length === 0) return <p className="dash-muted">No portal links.</p>;
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            <th scope="col">Portal link</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col" className="dash-num">
              Visits
            </th>
            {mayChange && <th scope="col">Action</th>}
          </tr>
        </thead>
        <tbody>
          {detail.portalSessions.map((session: PortalSession) => (
            <tr key={session.id}>
              <td data-label="Portal link">
                <span className="dash-mono">{session.id}</span>
              </td>
              <td data-label="Status">
                <span className="dash-status" data-status={session.status}>
                  {session.status}
                </span>
              </td>
              {/* Dates may wrap here: six columns and a button must fit the card without sideways scrolling. */}
              <td data-label="Created">{utcTime(session.created)}</td>
              <td data-label="Expires">{utcTime(session.expires_at)}</td>
              <td className="dash-num" data-label="Visits">
                {session.access_count}
              </td>
              {mayChange && (
                <td data-label="Action">
                  {session.status === 'active' ? (
                    <ActionForm action="revoke-portal-link" mode={mode} className="dash-inline-form" label={`Revoke ${session.id}`}>
                      <input type="hidden" name="customer_id" value={detail.customer.id} />
                      <input type="hidden" name="portal_session_id" value={session.id} />
                      <button type="submit">Revoke</button>
                    </ActionForm>
                  ) : (
                    '—'
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One customer of the store and mode (deleted ones are gone); anything else is this page's 404. */
export async function CustomerPage({ mode, params, searchParams }: { mode: DashboardMode; params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const entry = await storePage(mode, '/customers');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const { id } = await params;
  const { error } = await searchParams;
  const services = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const detail = await customerDetail(services, scope, id).catch((failure: unknown) => {
    if (failure instanceof ApiError && failure.code === 'resource_missing') notFound();
    throw failure;
  });
  const mayChange = can(current.role, 'refund');
  const newUrl = mayChange ? await takeRevealed('portal_link', access.userId) : undefined;
  const message = typeof error === 'string' ? MESSAGES[error] : undefined;
  const base = dashboardBase(mode);
  const { customer } = detail;
  return (
    <DashboardShell access={access} mode={mode} path="/customers">
      <p className="dash-back">
        <a href={`${base}/customers`}>← Customers</a>
      </p>
      <section className="dash-card">
        <h1 className="dash-mono">{customer.id}</h1>
        <FactList
          rows={[
            ['Email', customer.email],
            ['Name', customer.name ?? '—'],
            ['Created', utcTime(customer.created)],
            ['Mode', customer.livemode ? 'live' : 'test'],
          ]}
        />
        {message && (
          <p role="alert" className="dash-alert dash-alert-below">
            {message}
          </p>
        )}
      </section>
      <section className="dash-card" aria-labelledby="customer-orders">
        <h2 id="customer-orders">Orders</h2>
        <Orders base={base} detail={detail} />
      </section>
      <section className="dash-card" aria-labelledby="customer-subscriptions">
        <h2 id="customer-subscriptions">Subscriptions</h2>
        <Subscriptions base={base} detail={detail} />
      </section>
      <section className="dash-card" aria-labelledby="customer-portal">
        <h2 id="customer-portal">Portal links</h2>
        {newUrl && (
          <div role="status" className="dash-secret">
            <p>
              <strong>New portal link.</strong> Copy it now: it is shown only this once.
            </p>
            <input readOnly aria-label="New portal link" value={newUrl} className="dash-mono" />
          </div>
        )}
        <PortalLinks detail={detail} mode={mode} mayChange={mayChange} />
        {detail.morePortalSessions && <p className="dash-muted">The latest {detail.portalSessions.length} links are shown.</p>}
        {mayChange && (
          <ActionForm action="create-portal-link" mode={mode} idempotent className="dash-form dash-action-form">
            <input type="hidden" name="customer_id" value={customer.id} />
            <button type="submit">Create portal link</button>
          </ActionForm>
        )}
      </section>
      {mayChange && (
        <section className="dash-card" aria-labelledby="customer-delete">
          <h2 id="customer-delete">Delete customer</h2>
          <p className="dash-muted">Their orders stay; their portal links are revoked at once and their e-mail is free for a new customer.</p>
          <ActionForm action="delete-customer" mode={mode} className="dash-form dash-action-form">
            <input type="hidden" name="customer_id" value={customer.id} />
            <label className="dash-check">
              <input type="checkbox" name="confirm" value="yes" required /> I confirm deleting this customer
            </label>
            <button type="submit" className="dash-danger">
              Delete customer
            </button>
          </ActionForm>
        </section>
      )}
    </DashboardShell>
  );
}
