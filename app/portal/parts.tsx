import type { ReactNode } from 'react';
import { MerchantName } from '../checkout/parts';
import type { PortalCard, PortalOrder, PortalSubscription } from '@/server/portal/page';
import { isoDate, type Formatters } from './format';

const ORDER_STATUS: Record<PortalOrder['status'], { label: string; tone: Tone }> = {
  paid: { label: 'Paid', tone: 'success' },
  partially_refunded: { label: 'Partially refunded', tone: 'info' },
  refunded: { label: 'Refunded', tone: 'neutral' },
  pending: { label: 'Awaiting payment', tone: 'warning' },
};

const SUBSCRIPTION_STATUS: Record<PortalSubscription['status'], { label: string; tone: Tone }> = {
  active: { label: 'Active', tone: 'success' },
  pending: { label: 'Starting', tone: 'info' },
  incomplete: { label: 'First payment failed', tone: 'danger' },
  past_due: { label: 'Payment overdue', tone: 'warning' },
  suspended: { label: 'Paused', tone: 'neutral' },
  canceled: { label: 'Canceled', tone: 'neutral' },
  expired: { label: 'Ended', tone: 'neutral' },
};

const PAYMENT_STATUS: Record<PortalSubscription['payments'][number]['status'], { label: string; tone: Tone }> = {
  succeeded: { label: 'Paid', tone: 'success' },
  declined: { label: 'Declined', tone: 'danger' },
  processing: { label: 'Processing', tone: 'info' },
  unknown: { label: 'Processing', tone: 'info' },
  requires_action: { label: 'Awaiting authentication', tone: 'info' },
  refund_due: { label: 'Being refunded', tone: 'info' },
  refunded: { label: 'Refunded', tone: 'neutral' },
};

const REFUND_STATUS: Record<PortalOrder['refunds'][number]['status'], string> = { succeeded: 'refunded', pending: 'pending', failed: 'failed' };

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover' };

type Tone = 'success' | 'info' | 'warning' | 'danger' | 'neutral';

export function Badge({ label, tone }: { label: string; tone: Tone }) {
  return <span className={`pt-badge pt-badge-${tone}`}>{label}</span>;
}

export function DateText({ at, format }: { at: number; format: Formatters }) {
  return <time dateTime={isoDate(at)}>{format.date(at)}</time>;
}

/** Brand and last 4 only; the full number was never stored. */
function cardText(card: PortalCard): string {
  return `${BRANDS[card.brand] ?? 'Card'} ending in ${card.last4}`;
}

/** Header with the shop's name, a labelled main landmark and a footer saying what the page is. */
export function PortalShell({ storeName, livemode, headingId, children }: { storeName: string; livemode: boolean; headingId: string; children: ReactNode }) {
  return (
    <>
      <a className="co-skip" href="#main">
        Skip to content
      </a>
      {livemode ? null : (
        <aside className="co-test" aria-label="Test mode">
          <p>
            <strong>Test mode.</strong> These are test payments: no real money moved.
          </p>
        </aside>
      )}
      <header className="co-header" aria-label="Shop">
        <div className="co-header-inner">
          <MerchantName storeName={storeName} />
          <p className="co-secure">Payment history · read-only</p>
        </div>
      </header>
      <main id="main" className="co-main pt-main" aria-labelledby={headingId}>
        {children}
      </main>
      <footer className="co-footer" aria-label="About this page">
        <p>
          This private link was shared with you by {storeName}. Keep it to yourself: anyone holding it can see this page. Payments are processed by
          the payments service as merchant of record; card details are never stored beyond the brand and last four digits.
        </p>
      </footer>
    </>
  );
}

export function OrderCard({ order, format, headingLevel = 3 }: { order: PortalOrder; format: Formatters; headingLevel?: 2 | 3 }) {
  const headingId = `order-${order.id}`;
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const status = ORDER_STATUS[order.status];
  return (
    <article className="co-card pt-item" aria-labelledby={headingId}>
      <div className="pt-item-head">
        <Heading id={headingId} className="pt-item-title">
          Order of <DateText at={order.paidAt ?? order.created} format={format} />
        </Heading>
        <Badge {...status} />
      </div>
      <p className="pt-ref">
        Reference <span className="pt-mono">{order.id}</span>
      </p>
      <table className="co-lines">
        <caption className="co-visually-hidden">Items, quantities and prices</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col" className="co-num">
              Qty
            </th>
            <th scope="col" className="co-num">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {order.lines.map((line, index) => (
            <tr key={index}>
              <th scope="row" className="co-line-name">
                {line.description}
                <span className="pt-line-unit">{format.amount(line.unitAmount)} each</span>
              </th>
              <td className="co-num">{line.quantity}</td>
              <td className="co-num">{format.amount(line.unitAmount * line.quantity)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <dl className="co-totals">
        <div>
          <dt>Subtotal</dt>
          <dd>{format.amount(order.amountSubtotal)}</dd>
        </div>
        <div>
          <dt>{order.taxInclusive ? 'Tax (included)' : 'Tax'}</dt>
          <dd>{format.amount(order.amountTax)}</dd>
        </div>
        <div className="co-total">
          <dt>Total</dt>
          <dd>{format.amount(order.amountTotal)}</dd>
        </div>
        {order.amountRefunded > 0 ? (
          <div>
            <dt>Refunded</dt>
            <dd>−{format.amount(order.amountRefunded)}</dd>
          </div>
        ) : null}
      </dl>
      <dl className="co-facts pt-facts">
        <dt>Payment</dt>
        <dd>
          {order.paidAt === null ? (
            'Not paid'
          ) : (
            <>
              Paid on <DateText at={order.paidAt} format={format} />
              {order.card ? ` with ${cardText(order.card)}` : null}
            </>
          )}
        </dd>
        {order.refunds.length > 0 ? (
          <>
            <dt>Refunds</dt>
            <dd>
              <ul className="pt-list">
                {order.refunds.map((refund, index) => (
                  <li key={index}>
                    {format.amount(refund.amount)} on <DateText at={refund.created} format={format} /> ({REFUND_STATUS[refund.status]})
                  </li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
        {order.licenseKeys.length > 0 ? (
          <>
            <dt>{order.licenseKeys.length === 1 ? 'License key' : 'License keys'}</dt>
            <dd>
              <ul className="pt-list">
                {order.licenseKeys.map((key) => (
                  <li key={key}>
                    <code className="pt-mono">{key}</code>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
      </dl>
    </article>
  );
}

function billingInterval(subscription: PortalSubscription): string {
  const unit = subscription.interval;
  return subscription.intervalCount === 1 ? `every ${unit}` : `every ${subscription.intervalCount} ${unit}s`;
}

export function SubscriptionCard({ subscription, format, headingLevel = 3, index }: { subscription: PortalSubscription; format: Formatters; headingLevel?: 2 | 3; index: number }) {
  const headingId = `subscription-${index}`;
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const Subheading = headingLevel === 2 ? 'h3' : 'h4';
  return (
    <article className="co-card pt-item" aria-labelledby={headingId}>
      <div className="pt-item-head">
        <Heading id={headingId} className="pt-item-title">
          {subscription.planName || 'Subscription'}
        </Heading>
        <Badge {...SUBSCRIPTION_STATUS[subscription.status]} />
      </div>
      <dl className="co-facts pt-facts">
        <dt>Price</dt>
        <dd>
          {format.amount(subscription.amount)} {billingInterval(subscription)}
        </dd>
        <dt>Next payment</dt>
        <dd>{subscription.nextBillingAt === null ? 'None scheduled' : <DateText at={subscription.nextBillingAt} format={format} />}</dd>
        <dt>Subscribed since</dt>
        <dd>
          <DateText at={subscription.created} format={format} />
        </dd>
      </dl>
      <Subheading className="pt-subheading">Payment attempts</Subheading>
      {subscription.payments.length === 0 ? (
        <p className="pt-empty-inline">No payments yet.</p>
      ) : (
        <table className="co-lines pt-payments">
          <caption className="co-visually-hidden">Payment attempts, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Card</th>
              <th scope="col">Status</th>
              <th scope="col" className="co-num">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {subscription.payments.map((payment, paymentIndex) => (
              <tr key={paymentIndex}>
                <td>
                  <DateText at={payment.date} format={format} />
                </td>
                <td>{payment.card ? cardText(payment.card) : '—'}</td>
                <td>
                  <Badge {...PAYMENT_STATUS[payment.status]} />
                </td>
                <td className="co-num">{format.amount(payment.amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}

/** A friendly empty state instead of a blank section. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="co-card pt-empty">
      <p className="pt-empty-title">{title}</p>
      <p>{children}</p>
    </div>
  );
}
