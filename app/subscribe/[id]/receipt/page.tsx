import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { singleParam } from '@/server/kit/hosted-page/request';
import { intervalPhrase, loadHostedSubscriptionReceipt } from '@/server/subscriptions/hosted';
import { CheckoutShell, formatEur, Notice } from '../../../checkout/parts';

export const dynamic = 'force-dynamic';

const DATE = new Intl.DateTimeFormat('en-IE', { dateStyle: 'long', timeZone: 'UTC' });

/** GET /subscribe/{id}/receipt?signature: where an approved subscription checkout without success_url lands. */
export default async function SubscriptionReceiptPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { id } = await params;
  const { signature } = await searchParams;
  const services = await getAppServices();
  const receipt = await loadHostedSubscriptionReceipt(services, { id, signature: singleParam(signature) });
  if (!receipt) notFound();
  const { view, subscription } = receipt;
  // The first charge went through unless the attempt is still unconfirmed or was declined; later states do not undo it.
  const paid = subscription.status !== 'incomplete' && subscription.status !== 'pending';
  return (
    <CheckoutShell storeName={view.storeName} livemode={view.livemode}>
      <Notice title={paid ? 'Subscription confirmed' : 'No subscription was started'} tone={paid ? 'success' : 'error'}>
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
                <dd>
                  {subscription.cardBrand} ending {subscription.cardLast4}
                </dd>
              </div>
            ) : null}
            {subscription.status === 'active' ? (
              <div>
                <dt>Next payment</dt>
                <dd>{DATE.format(new Date(subscription.nextBillingAt * 1000))}</dd>
              </div>
            ) : null}
            <div className="co-total">
              <dt>Paid today</dt>
              <dd>{formatEur(view.amount)}</dd>
            </div>
          </dl>
        ) : (
          <p>The first payment did not go through, so nothing is billed. Go back to {view.storeName} to start a new subscription.</p>
        )}
      </Notice>
    </CheckoutShell>
  );
}
