import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { getAppServices } from '@/server/app';
import { singleParam } from '@/server/kit/hosted-page/request';
import { CANCEL_LINK_TEXT, cancelPageUrl } from '@/server/kit/hosted-page/cancel-link';
import { amountDueToday, hostedSubscriptionReceiptHandoff, intervalPhrase, loadHostedSubscriptionReceipt, type HostedSubscriptionReceipt } from '@/server/subscriptions/hosted';
import { cardText, CheckoutShell, formatDate, Notice, SellerLine } from '../../../checkout/parts';
import { formatEur } from '@/server/kit/hosted-page/amounts';

export const dynamic = 'force-dynamic';

type PageProps = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** Loaded by proxy.ts for this request (here only when it was not: a HEAD); once per request, for the title and the page. */
const hostedReceipt = cache(async (id: string, signature: string | undefined): Promise<HostedSubscriptionReceipt | undefined> => {
  return hostedSubscriptionReceiptHandoff.take(await headers()) ?? (await loadHostedSubscriptionReceipt(await getAppServices(), { id, signature }));
});

async function hostedReceiptOf({ params, searchParams }: PageProps) {
  return hostedReceipt((await params).id, singleParam((await searchParams).signature));
}

/** The first charge went through unless the attempt is still unconfirmed or was declined; later states do not undo it. */
function wasPaid(receipt: HostedSubscriptionReceipt): boolean {
  return receipt.subscription.status !== 'incomplete' && receipt.subscription.status !== 'pending';
}

/** The tab names the store, the plan and its amount. */
export async function generateMetadata(props: PageProps): Promise<Metadata> {
  const receipt = await hostedReceiptOf(props);
  if (!receipt) return {};
  const { view } = receipt;
  const price = `${formatEur(view.amount)} ${intervalPhrase(view.interval, view.intervalCount)}`;
  return { title: wasPaid(receipt) ? `Subscription confirmed: ${view.planName}, ${price} · ${view.storeName}` : `No subscription started · ${view.storeName}` };
}

/** GET /subscribe/{id}/receipt?signature: where an approved subscription checkout without success_url lands. */
export default async function SubscriptionReceiptPage(props: PageProps) {
  const receipt = await hostedReceiptOf(props);
  const { operator } = (await getAppServices()).config;
  if (!receipt) notFound();
  const { view, subscription } = receipt;
  const paid = wasPaid(receipt);
  return (
    <CheckoutShell store={{ name: view.storeName, links: view.storeLinks }} operator={operator} subscriptionId={paid ? subscription.id : undefined}>
      <Notice title={paid ? 'Subscription confirmed' : 'No subscription was started'} tone={paid ? 'success' : 'error'}>
        {paid ? <SellerLine operator={operator} storeName={view.storeName} /> : null}
        {paid ? (
          <dl className="co-totals">
            <div>
              <dt>Plan</dt>
              <dd>{view.planName}</dd>
            </div>
            <div>
              <dt>Amount</dt>
              <dd>
                {formatEur(view.amount)} {intervalPhrase(view.interval, view.intervalCount)}
              </dd>
            </div>
            <div>
              <dt>Subscription</dt>
              <dd>{subscription.id}</dd>
            </div>
            <div>
              <dt>Email</dt>
              <dd>{view.customerEmail}</dd>
            </div>
            {subscription.cardLast4 ? (
              <div>
                <dt>Card</dt>
                <dd>{cardText(subscription.cardBrand, subscription.cardLast4)}</dd>
              </div>
            ) : null}
            {subscription.status === 'active' || subscription.status === 'trialing' ? (
              <div>
                <dt>{subscription.status === 'trialing' ? 'Free trial until' : 'Next payment'}</dt>
                <dd>{formatDate(subscription.nextBillingAt)}</dd>
              </div>
            ) : null}
            <div className="co-total">
              <dt>Paid today</dt>
              <dd>{formatEur(amountDueToday(view))}</dd>
            </div>
          </dl>
        ) : null}
        {paid ? (
          <p className="co-mandate">
            To cancel, use{' '}
            <a className="co-link" href={cancelPageUrl({ subscriptionId: subscription.id })}>
              {CANCEL_LINK_TEXT.en}
            </a>{' '}
            or ask {view.storeName}: no payment is taken after the period you have paid for.
          </p>
        ) : (
          <p>The first payment did not go through, so nothing is billed. Go back to {view.storeName} to start a new subscription.</p>
        )}
      </Notice>
    </CheckoutShell>
  );
}
