import type { ReactNode } from 'react';
import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { getOrderWithCard } from '@/server/dashboard/orders';
import { scopeClock } from '@/server/dashboard/service';
import { readDispute } from '@/server/disputes/service';
import { getInvoice } from '@/server/invoices/service';
import { ApiError } from '@/server/errors';
import type { Order } from '@/server/orders/schemas';
import { can } from '@/server/users/roles';
import { waiverText } from '@/server/orders/withdrawals/waiver';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { DisputeSection } from '../disputes/dispute-section';
import { money, utcTime } from '../format';
import { queryText } from '../list-query';
import { DashboardShell, storePage } from '../shell';
import type { SearchParams } from './query';
import { OrderStatus } from './status';
import { FactList } from '../card';

/** The refund form's errors, by the code refundAction sends back. */
const REFUND_MESSAGES: Record<string, (order: Order) => string> = {
  amount: () => 'Enter an amount in euros with at most two decimals, e.g. 12.50.',
  confirm: () => 'Tick “I confirm this live refund” to refund in live mode.',
  form_expired: () => 'This form has expired: reload the page and refund again.',
  above_remainder: (order) => `The amount exceeds what remains to refund on this order: at most ${money(order.amount_total - order.amount_refunded)}.`,
  not_paid: () => 'This order is not paid: only paid orders can be refunded.',
  refunded: () => 'This order has already been refunded in full: nothing remains to refund.',
  key_reused: () => 'This form was already used for another amount. Reload the page to refund again.',
  outcome_unknown: () => 'The payment gateway did not confirm the refund. It stays pending, with its amount reserved, until the gateway answers.',
  disputed: () => 'Nothing was refunded: the order was disputed meanwhile.',
};

/** Why a disputed order offers no refund: the refund service refuses one while the dispute is open or after it was lost. */
const DISPUTED_NOTE = 'This order is disputed: it cannot be refunded while the dispute is open, nor after it was lost, since the card network took the payment back.';

const centsAsEuros = (cents: number) => (cents / 100).toFixed(2);

/** The waiver as the customer agreed to it: when, and the two sentences of its version. */
function Waiver({ waiver }: { waiver: NonNullable<Order['withdrawal_waiver']> }) {
  const text = waiverText(waiver.text_version);
  return (
    <>
      Given {utcTime(waiver.accepted_at)}
      <span className="dash-muted dash-block">{text ? `“${text.deliveryConsent}” and “${text.acknowledgement}”` : waiver.text_version}</span>
    </>
  );
}

function Withdrawal({ withdrawal }: { withdrawal: NonNullable<Order['withdrawal']> }) {
  return (
    <>
      {withdrawal.status === 'refunded' ? 'Refunded' : 'Requested'} {utcTime(withdrawal.requested_at)}
      {withdrawal.status === 'requested' && <span className="dash-block">Refund due by {utcTime(withdrawal.refund_due_by)}</span>}
      {withdrawal.reason && <span className="dash-muted dash-block">“{withdrawal.reason}”</span>}
    </>
  );
}

const BILLING_REASON_LABELS: Record<Order['billing_reason'], string> = {
  purchase: 'Purchase',
  subscription_create: 'Subscription, first payment',
  subscription_cycle: 'Subscription renewal',
  subscription_update: 'Subscription plan change',
};

function Summary({
  order,
  card,
  invoiceNumber,
  mode,
  downloads,
}: {
  order: Order;
  card: { brand: string; last4: string } | null;
  invoiceNumber: string | undefined;
  mode: DashboardMode;
  downloads: number;
}) {
  const rows: [string, ReactNode][] = [
    ['Status', <OrderStatus status={order.status} />],
    ['Created', utcTime(order.created)],
    ['Paid', order.paid_at === null ? '—' : utcTime(order.paid_at)],
    [
      'Billing reason',
      <>
        {BILLING_REASON_LABELS[order.billing_reason]}
        {order.subscription_id && (
          <a href={`${dashboardBase(mode)}/subscriptions/${order.subscription_id}`} className="dash-mono dash-block">
            {order.subscription_id}
          </a>
        )}
      </>,
    ],
    [
      'Customer',
      <>
        {order.customer_email ?? '—'}
        {order.customer_id && <span className="dash-muted dash-mono dash-block">{order.customer_id}</span>}
      </>,
    ],
    ['Card', card ? `${card.brand.charAt(0).toUpperCase()}${card.brand.slice(1)} •••• ${card.last4}` : '—'],
    [
      'Invoice',
      invoiceNumber ? (
        <>
          <span className="dash-mono">{invoiceNumber}</span> <a href={`${dashboardBase(mode)}/orders/${order.id}/invoice`}>PDF</a>
        </>
      ) : (
        '—'
      ),
    ],
    ['Withdrawal waiver', order.withdrawal_waiver ? <Waiver waiver={order.withdrawal_waiver} /> : '—'],
    ['Withdrawal', order.withdrawal ? <Withdrawal withdrawal={order.withdrawal} /> : '—'],
    ['File downloads', String(downloads)],
  ];
  return <FactList rows={rows} />;
}

function Lines({ order }: { order: Order }) {
  const totals: [string, number][] = [
    ['Subtotal', order.amount_subtotal],
    ['Tax', order.amount_tax],
    ['Total', order.amount_total],
    ['Refunded', order.amount_refunded],
  ];
  return (
    <>
      <div className="dash-table-wrap">
        <table className="dash-table dash-table-stack">
          <thead>
            <tr>
              <th scope="col">Description</th>
              <th scope="col" className="dash-num">
                Quantity
              </th>
              <th scope="col" className="dash-num">
                Unit amount
              </th>
              <th scope="col" className="dash-num">
                Tax
              </th>
              <th scope="col" className="dash-num">
                Total
              </th>
            </tr>
          </thead>
          <tbody>
            {order.lines.map((line, index) => (
              <tr key={index}>
                <td data-label="Description">{line.description}</td>
                <td className="dash-num" data-label="Quantity">
                  {line.quantity}
                </td>
                <td className="dash-num" data-label="Unit amount">
                  {money(line.unit_amount)}
                </td>
                <td className="dash-num" data-label="Tax">
                  {money(line.amount_tax)}
                </td>
                <td className="dash-num" data-label="Total">
                  {money(line.amount_total)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <dl className="dash-totals">
        {totals.map(([label, cents]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{money(cents)}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

function Refunds({ order }: { order: Order }) {
  if (order.refunds.length === 0) return <p className="dash-muted">No refunds.</p>;
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            <th scope="col">Refund</th>
            <th scope="col" className="dash-num">
              Amount
            </th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {order.refunds.map((refund) => (
            <tr key={refund.id}>
              <td data-label="Refund">
                <span className="dash-mono">{refund.id}</span>
              </td>
              <td className="dash-num" data-label="Amount">
                {money(refund.amount)}
              </td>
              <td data-label="Status">{refund.status}</td>
              <td className="dash-nowrap" data-label="Created">
                {utcTime(refund.created)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RefundForm({ order, mode }: { order: Order; mode: DashboardMode }) {
  const remaining = order.amount_total - order.amount_refunded;
  return (
    <ActionForm action="refund" mode={mode} idempotent className="dash-form dash-refund">
      <h3>Refund</h3>
      <input type="hidden" name="order_id" value={order.id} />
      <label htmlFor="refund-amount">Amount</label>
      <input id="refund-amount" name="amount" inputMode="decimal" required pattern="\d{1,9}(\.\d{1,2})?" defaultValue={centsAsEuros(remaining)} aria-describedby="refund-amount-hint" />
      <p id="refund-amount-hint" className="dash-muted">
        EUR, at most {money(remaining)}.
      </p>
      {mode === 'live' && (
        <label className="dash-check">
          <input type="checkbox" name="confirm" value="yes" required /> I confirm this live refund
        </label>
      )}
      <button type="submit">Refund</button>
    </ActionForm>
  );
}

/** One order of the store and mode; anything else is this page's 404. */
export async function OrderPage({ mode, params, searchParams }: { mode: DashboardMode; params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const entry = await storePage(mode, '/orders');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const { id } = await params;
  const search = await searchParams;
  const error = queryText(search, 'error');
  const services = await getAppServices();
  const { db } = services;
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const { order, card, downloads } = await getOrderWithCard(db, scope, id).catch((failure: unknown) => {
    if (failure instanceof ApiError && failure.code === 'resource_missing') notFound();
    throw failure;
  });
  const invoice = order.invoice_id ? await getInvoice(db, scope, order.invoice_id) : undefined;
  // The dispute's evidence form is offered by the store's clock.
  const dispute = order.dispute_id === null ? undefined : { row: await readDispute(db, scope, order.dispute_id), now: (await scopeClock(services, scope)).now() };
  const refundsClosed = dispute !== undefined && dispute.row.status !== 'won';
  const refundable = can(current.role, 'refund') && order.status !== 'pending' && order.amount_refunded < order.amount_total && !refundsClosed;
  const message = Object.hasOwn(REFUND_MESSAGES, error) ? REFUND_MESSAGES[error]!(order) : undefined;
  return (
    <DashboardShell access={access} mode={mode} path="/orders">
      <p className="dash-back">
        <a href={`${dashboardBase(mode)}/orders`}>← Orders</a>
      </p>
      <section className="dash-card">
        <h1 className="dash-mono">{order.id}</h1>
        <Summary order={order} card={card} invoiceNumber={invoice?.number} mode={mode} downloads={downloads} />
      </section>
      {dispute && <DisputeSection {...dispute} role={current.role} mode={mode} error={error} saved={queryText(search, 'saved')} />}
      <section className="dash-card" aria-labelledby="order-lines">
        <h2 id="order-lines">Lines</h2>
        <Lines order={order} />
      </section>
      {order.license_keys.length > 0 && (
        <section className="dash-card" aria-labelledby="order-keys">
          <h2 id="order-keys">License keys</h2>
          <ul className="dash-keys">
            {order.license_keys.map((key) => (
              <li key={key} className="dash-mono">
                {key}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section className="dash-card" aria-labelledby="order-refunds">
        <h2 id="order-refunds">Refunds</h2>
        <Refunds order={order} />
        {refundsClosed && can(current.role, 'refund') && <p className="dash-muted">{DISPUTED_NOTE}</p>}
        {message && (
          <p role="alert" className="dash-alert">
            {message}
          </p>
        )}
        {refundable && <RefundForm order={order} mode={mode} />}
      </section>
    </DashboardShell>
  );
}
