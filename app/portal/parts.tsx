import type { ReactNode } from 'react';
import { discountOffText } from '@/server/kit/discounts';
import type { OperatorConfig } from '@/server/config';
import { cardText, DownloadLinks, MerchantName, PageFooter, type PageStore } from '../checkout/parts';
import { taxLineLabel } from '@/server/kit/hosted-page/tax-label';
import type { PortalOrder, PortalSubscription } from '@/server/portal/page';
import { isoDate, type Formatters } from '@/server/kit/locale';
import { CANCEL_LINK_TEXT, cancelPageUrl } from '@/server/kit/hosted-page/cancel-link';

const ORDER_STATUS: Record<PortalOrder['status'], { label: string; tone: Tone }> = {
  paid: { label: 'Paid', tone: 'success' },
  partially_refunded: { label: 'Partially refunded', tone: 'info' },
  refunded: { label: 'Refunded', tone: 'neutral' },
  pending: { label: 'Awaiting payment', tone: 'warning' },
};

const SUBSCRIPTION_STATUS: Record<PortalSubscription['status'], { label: string; tone: Tone }> = {
  trialing: { label: 'Trial', tone: 'info' },
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
  refunded: { label: 'Refunded', tone: 'neutral' },
  partially_refunded: { label: 'Partly refunded', tone: 'neutral' },
};

const REFUND_STATUS: Record<PortalOrder['refunds'][number]['status'], string> = { succeeded: 'refunded', pending: 'pending', failed: 'failed' };

type Tone = 'success' | 'info' | 'warning' | 'danger' | 'neutral';

export function Badge({ label, tone }: { label: string; tone: Tone }) {
  return <span className={`pt-badge pt-badge-${tone}`}>{label}</span>;
}

export function DateText({ at, format }: { at: number; format: Formatters }) {
  return <time dateTime={isoDate(at)}>{format.date(at)}</time>;
}

/** Header with the shop (its logo when it has one), a labelled main landmark, and the footer of every hosted page saying what this one is. */
export function PortalShell({
  store,
  operator,
  livemode,
  headingId,
  subscriptionId,
  children,
}: {
  store: PageStore;
  operator: OperatorConfig;
  livemode: boolean;
  headingId: string;
  /** The one subscription a subscription's link shows, which the footer's cancel link names. */
  subscriptionId?: string;
  children: ReactNode;
}) {
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
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: a header outside any section is the banner landmark, which may be named */}
      <header className="co-header" aria-label="Shop">
        <div className="co-header-inner">
          <MerchantName storeName={store.name} logoUrl={store.links.logoUrl} />
          <p className="co-secure">Payment history · read-only</p>
        </div>
      </header>
      <main id="main" className="co-main pt-main" aria-labelledby={headingId}>
        {children}
      </main>
      <PageFooter store={store} operator={operator} subscriptionId={subscriptionId}>
        This private link was shared with you by {store.name}. Keep it to yourself: anyone holding it can see this page. Card details are never stored beyond the brand and last four digits.
      </PageFooter>
    </>
  );
}

/**
 * `portalPath`: the link's own path (`/portal/<token>`), under which its documents download
 * (`/invoices/<id>`, `/credit_notes/<id>`).
 */
export function OrderCard({ order, format, portalPath, headingLevel = 3 }: { order: PortalOrder; format: Formatters; portalPath: string; headingLevel?: 2 | 3 }) {
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
          <dt>{taxLineLabel(order.tax)}</dt>
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
              {order.card ? ` with ${cardText(order.card.brand, order.card.last4)}` : null}
            </>
          )}
        </dd>
        {order.invoiceId ? (
          <>
            <dt>Invoice</dt>
            <dd>
              <a className="co-link" href={`${portalPath}/invoices/${order.invoiceId}`}>
                Download invoice
              </a>
            </dd>
          </>
        ) : null}
        {order.refunds.length > 0 ? (
          <>
            <dt>Refunds</dt>
            <dd>
              <ul className="pt-list">
                {order.refunds.map((refund, index) => (
                  <li key={index}>
                    {format.amount(refund.amount)} on <DateText at={refund.created} format={format} /> ({REFUND_STATUS[refund.status]})
                    {refund.creditNoteId ? (
                      <>
                        {' · '}
                        <a className="co-link" href={`${portalPath}/credit_notes/${refund.creditNoteId}`}>
                          Download credit note
                        </a>
                      </>
                    ) : null}
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
        {order.downloads.length > 0 ? (
          <>
            <dt>Downloads</dt>
            <dd>
              <DownloadLinks downloads={order.downloads} className="pt-list" />
            </dd>
          </>
        ) : null}
      </dl>
    </article>
  );
}

function billingInterval(plan: Pick<PortalSubscription, 'interval' | 'intervalCount'>): string {
  const unit = plan.interval;
  return plan.intervalCount === 1 ? `every ${unit}` : `every ${plan.intervalCount} ${unit}s`;
}

/** `15% off until 1 March 2027`, `€3.00 off until …`; a discount without an end reads without one. */
function discountText(discount: NonNullable<PortalSubscription['discount']>, format: Formatters): string {
  const off = discountOffText(discount, format.amount);
  return discount.until === null ? off : `${off} until ${format.date(discount.until)}`;
}

export function SubscriptionCard({
  subscription,
  format,
  portalPath,
  headingLevel = 3,
  index,
}: {
  subscription: PortalSubscription;
  format: Formatters;
  portalPath: string;
  headingLevel?: 2 | 3;
  index: number;
}) {
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
        {subscription.endsAt === null ? (
          <>
            <dt>Next payment</dt>
            <dd>{subscription.nextBillingAt === null ? 'None scheduled' : <DateText at={subscription.nextBillingAt} format={format} />}</dd>
          </>
        ) : (
          <>
            <dt>Ends on</dt>
            <dd>
              <DateText at={subscription.endsAt} format={format} />
            </dd>
          </>
        )}
        {subscription.scheduledChange ? (
          <>
            <dt>Scheduled change</dt>
            <dd>
              {subscription.scheduledChange.planName}: {format.amount(subscription.scheduledChange.amount)} {billingInterval(subscription.scheduledChange)} from{' '}
              <DateText at={subscription.scheduledChange.effectiveAt} format={format} />
            </dd>
          </>
        ) : null}
        {subscription.card ? (
          <>
            <dt>Card</dt>
            <dd>{cardText(subscription.card.brand, subscription.card.last4)}</dd>
          </>
        ) : null}
        {subscription.trialEnd === null ? null : (
          <>
            <dt>Trial ends</dt>
            <dd>
              <DateText at={subscription.trialEnd} format={format} />
            </dd>
          </>
        )}
        {subscription.discount === null ? null : (
          <>
            <dt>Discount</dt>
            <dd>{discountText(subscription.discount, format)}</dd>
          </>
        )}
        {subscription.credit > 0 ? (
          <>
            <dt>Credit</dt>
            <dd>{format.amount(subscription.credit)}</dd>
          </>
        ) : null}
        <dt>Subscribed since</dt>
        <dd>
          <DateText at={subscription.created} format={format} />
        </dd>
      </dl>
      {/* Only a subscription that is still charged has a card to replace and a contract to cancel. */}
      {subscription.updatePaymentMethodUrl ? (
        <p className="co-actions">
          <a className="co-button co-button-secondary" href={subscription.updatePaymentMethodUrl}>
            Update payment method
          </a>
          <a className="co-link" href={cancelPageUrl({ subscriptionId: subscription.id })}>
            {CANCEL_LINK_TEXT.en}
          </a>
        </p>
      ) : null}
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
              <th scope="col">
                <span className="co-visually-hidden">Invoice</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {subscription.payments.map((payment, paymentIndex) => (
              <tr key={paymentIndex}>
                <td>
                  <DateText at={payment.date} format={format} />
                </td>
                <td>{payment.card ? cardText(payment.card.brand, payment.card.last4) : '—'}</td>
                <td>
                  <Badge {...PAYMENT_STATUS[payment.status]} />
                </td>
                <td className="co-num">{format.amount(payment.amount)}</td>
                <td>
                  {payment.invoiceId ? (
                    <a className="co-link" href={`${portalPath}/invoices/${payment.invoiceId}`}>
                      Download invoice
                    </a>
                  ) : null}
                </td>
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
