import type { ReactNode } from 'react';
import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { openPortal, type PortalPage as PortalData } from '@/server/portal/page';
import { formattersFor, visitorLocale, type Formatters } from '@/server/kit/locale';
import { DateText, EmptyState, OrderCard, PortalShell, SubscriptionCard } from '../parts';

// Every view counts and re-checks the link: never prerendered, never cached.
export const dynamic = 'force-dynamic';

const HEADING_ID = 'portal-heading';

/**
 * GET /portal/{token}: a customer's read-only payment history. proxy.ts has
 * already answered unknown, expired and revoked links with a 404 page; openPortal checks again
 * in the statement that counts this view, so a revocation in between still wins.
 */
export default async function PortalPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const services = await getAppServices();
  const portal = await openPortal(services, token);
  if (!portal) notFound();
  const format = formattersFor(visitorLocale((await headers()).get('accept-language')));
  const portalPath = `/portal/${token}`;
  return (
    <PortalShell
      store={{ name: portal.storeName, links: portal.storeLinks }}
      operator={services.config.operator}
      livemode={portal.livemode}
      headingId={HEADING_ID}
      subscriptionId={portal.scope === 'subscription' ? portal.subscriptions[0]?.id : undefined}
    >
      <div className="pt-intro">
        <h1 id={HEADING_ID} className="co-h1">
          <span className="co-h1-label">{portal.storeName}</span>
          {portal.scope === 'customer' ? 'Your orders and subscriptions' : portal.scope === 'order' ? 'Your order' : 'Your subscription'}
        </h1>
        <p className="pt-lede">
          A read-only view of your payments. This link works until <DateText at={portal.expiresAt} format={format} />.
        </p>
      </div>
      {portal.scope === 'customer' ? <CustomerView portal={portal} format={format} portalPath={portalPath} /> : null}
      {portal.scope === 'order' ? portal.orders.map((order) => <OrderCard key={order.id} order={order} format={format} portalPath={portalPath} headingLevel={2} />) : null}
      {portal.scope === 'subscription'
        ? portal.subscriptions.map((subscription, index) => <SubscriptionCard key={index} index={index} subscription={subscription} format={format} portalPath={portalPath} headingLevel={2} />)
        : null}
    </PortalShell>
  );
}

function CustomerView({ portal, format, portalPath }: { portal: PortalData; format: Formatters; portalPath: string }) {
  const paid = portal.orders.reduce((sum, order) => sum + order.amountTotal, 0);
  const refunded = portal.orders.reduce((sum, order) => sum + order.amountRefunded, 0);
  return (
    <>
      <section className="co-card pt-summary" aria-labelledby="summary-heading">
        <h2 id="summary-heading" className="co-visually-hidden">
          Summary
        </h2>
        <dl className="pt-stats">
          <div>
            <dt>Orders</dt>
            <dd>{portal.orders.length}</dd>
          </div>
          <div>
            <dt>Total paid</dt>
            <dd>{format.amount(paid)}</dd>
          </div>
          <div>
            <dt>Refunded</dt>
            <dd>{format.amount(refunded)}</dd>
          </div>
          <div>
            <dt>Subscriptions</dt>
            <dd>{portal.subscriptions.length}</dd>
          </div>
        </dl>
      </section>
      <ListSection
        headingId="orders-heading"
        heading="Orders"
        empty={portal.orders.length === 0 ? <EmptyState title="No orders yet">Purchases you make at {portal.storeName} will appear here.</EmptyState> : null}
      >
        {portal.orders.map((order) => (
          <OrderCard key={order.id} order={order} format={format} portalPath={portalPath} />
        ))}
      </ListSection>
      <ListSection
        headingId="subscriptions-heading"
        heading="Subscriptions"
        empty={portal.subscriptions.length === 0 ? <EmptyState title="No subscriptions">You have no subscriptions with {portal.storeName}.</EmptyState> : null}
      >
        {portal.subscriptions.map((subscription, index) => (
          <SubscriptionCard key={index} index={index} subscription={subscription} format={format} portalPath={portalPath} />
        ))}
      </ListSection>
    </>
  );
}

/** A titled list of the customer's items; `empty` (shown instead) when there are none. */
function ListSection({ headingId, heading, empty, children }: { headingId: string; heading: string; empty: ReactNode; children: ReactNode }) {
  return (
    <section className="pt-section" aria-labelledby={headingId}>
      <h2 id={headingId} className="co-h2">
        {heading}
      </h2>
      {empty ?? children}
    </section>
  );
}
