import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { getAppServices } from '@/server/app';
import { formatEur } from '@/server/kit/hosted-page/amounts';
import { failureMessage, hostedMessage, type HostedField } from '@/server/kit/hosted-page/messages';
import { hostedLinkFromQuery, singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { hostedPagePath } from '@/server/kit/links';
import { cardUpdateOutcome, loadPaymentMethodPage, paymentMethodHandoff, type CardUpdateOutcome, type PaymentMethodPage, type PaymentMethodView } from '@/server/subscriptions/payment-method';
import { CardFields, cardText, CheckoutShell, FormAlert, formatDate, Notice, PaymentForm } from '../../checkout/parts';

// Every view reads the subscription and the store's clock at request time.
export const dynamic = 'force-dynamic';

type PageProps = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

/** Loaded by proxy.ts for this request (loaded here only when it was not: a HEAD); once per request, for the title and the page. */
const paymentMethodPage = cache(async (id: string, expires: string | undefined, signature: string | undefined): Promise<PaymentMethodPage> => {
  const services = await getAppServices();
  return paymentMethodHandoff.take(await headers()) ?? (await loadPaymentMethodPage(services, { id, expires, signature }));
});

async function pageOf({ params, searchParams }: PageProps) {
  const link = hostedLinkFromQuery((await params).id, await searchParams);
  return { link, page: await paymentMethodPage(link.id, link.expires, link.signature) };
}

export async function generateMetadata(props: PageProps): Promise<Metadata> {
  const { page } = await pageOf(props);
  if (page.state === 'invalid') return {};
  return { title: `Update your payment method: ${page.view.planName} · ${page.view.storeName}` };
}

/** GET /payment-method/{id}?expires&signature: a new card for one subscription, and after a post what became of it (`outcome`). */
/** The card is kept by the payment gateway for the subscription's charges, never by this service. */
const CARD_NOTE = 'Card details go to the payment gateway for this subscription’s payments and are never stored here.';

export default async function UpdatePaymentMethodPage(props: PageProps) {
  const { link, page } = await pageOf(props);
  if (page.state === 'invalid') notFound();
  const query = await props.searchParams;
  const services = await getAppServices();
  const { view } = page;
  const store = { name: view.storeName, links: view.storeLinks };
  const outcome = await cardUpdateOutcome(services, view.id, singleParam(query.outcome));

  if (view.ended && !outcome?.adopted) {
    const refunded = outcome?.status === 'succeeded' && outcome.amount > 0;
    return (
      <CheckoutShell store={store} operator={services.config.operator} subscriptionId={view.id} cardNote={CARD_NOTE}>
        <Notice title="This subscription has ended" tone="info">
          <p>
            {view.planName} with {view.storeName} is no longer charged, so it takes no new card.
            {refunded ? ` The ${formatEur(outcome.amount)} charged to your card is refunded in full.` : ''}
          </p>
        </Notice>
      </CheckoutShell>
    );
  }
  if (outcome && outcome.status !== 'declined') {
    return (
      <CheckoutShell store={store} operator={services.config.operator} subscriptionId={view.id} cardNote={CARD_NOTE}>
        <UpdateOutcome view={view} outcome={outcome} />
      </CheckoutShell>
    );
  }

  // Verified by loadPaymentMethodPage: both are present.
  const signed = { id: view.id, expires: link.expires!, signature: link.signature! };
  const error = hostedMessage(singleParam(query.error));
  const fieldError = (name: HostedField) => (error?.field === name ? error.message : undefined);
  return (
    <CheckoutShell store={store} operator={services.config.operator} subscriptionId={view.id} cardNote={CARD_NOTE} testCards={view.livemode ? undefined : 'recurring'}>
      <div className="co-grid">
        <div className="co-intro">
          <h1 className="co-h1">
            <span className="co-h1-label">{view.storeName}</span>
            <span className="co-amount">Update your payment method</span>
          </h1>
          <Facts view={view} />
        </div>
        <section className="co-card co-pay" aria-labelledby="pay-heading">
          <h2 id="pay-heading" className="co-h2">
            New card
          </h2>
          {outcome?.status === 'declined' ? (
            <div role="alert" className="co-alert" id="form-error">
              <p>{failureMessage(outcome.failureCode)} Your card on file was not changed.</p>
            </div>
          ) : (
            <FormAlert error={error} />
          )}
          <PaymentForm action={hostedPagePath('payment_method', signed, {}, '/update')} readAt={view.readAt}>
            <CardFields fieldError={fieldError} />
            <div className="co-mandate">
              {view.owed === null ? (
                <p>The new card is checked with your bank; nothing is charged now. It is used for the next payments of {view.planName}.</p>
              ) : (
                <p>
                  The missed payment of {formatEur(view.owed)} is charged to the new card now, and the next payments of {view.planName} after it.
                </p>
              )}
            </div>
            <button type="submit" className="co-button co-pay-button">
              {view.owed === null ? 'Update card' : `Update card and pay ${formatEur(view.owed)}`}
            </button>
          </PaymentForm>
        </section>
      </div>
    </CheckoutShell>
  );
}

/** The plan, its next charge and the card it is charged to, in a card of their own. */
function Facts({ view }: { view: PaymentMethodView }) {
  return (
    <section className="co-card co-summary" aria-labelledby="plan-heading">
      <h2 id="plan-heading" className="co-h2">
        Your subscription
      </h2>
      <FactList view={view} />
    </section>
  );
}

function FactList({ view }: { view: PaymentMethodView }) {
  return (
    <dl className="co-totals">
      <div>
        <dt>Plan</dt>
        <dd>{view.planName}</dd>
      </div>
      {view.nextCharge ? (
        <div>
          <dt>Next charge</dt>
          <dd>
            {formatDate(view.nextCharge.at)}, {formatEur(view.nextCharge.amount)}
          </dd>
        </div>
      ) : null}
      <div>
        <dt>Current card</dt>
        <dd>{view.card ? cardText(view.card.brand, view.card.last4) : 'None'}</dd>
      </div>
      {view.owed === null ? null : (
        <div className="co-total">
          <dt>Payment due</dt>
          <dd>{formatEur(view.owed)}</dd>
        </div>
      )}
    </dl>
  );
}

/** An update approved, or still being checked (a gateway that did not answer, a challenge not finished). */
function UpdateOutcome({ view, outcome }: { view: PaymentMethodView; outcome: CardUpdateOutcome }) {
  if (outcome.status !== 'succeeded') {
    return (
      <Notice title="Checking your card" tone="info">
        <p>We could not yet confirm whether your new card was accepted. Please do not submit it again: this page shows the result once it is known.</p>
      </Notice>
    );
  }
  return (
    <Notice title="Payment method updated" tone="success">
      {outcome.amount > 0 ? <p>{formatEur(outcome.amount)} was charged to your new card.</p> : null}
      <p>
        {view.card ? cardText(view.card.brand, view.card.last4) : 'Your new card'} is used for the next payments of {view.planName} to {view.storeName}.
      </p>
      <FactList view={view} />
    </Notice>
  );
}
