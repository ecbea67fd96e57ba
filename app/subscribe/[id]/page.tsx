import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { failureMessage, hostedMessage, type HostedField } from '@/server/kit/hosted-page/messages';
import { hostedLinkFromQuery, singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { hostedPagePath } from '@/server/kit/links';
import { subscribedRedirectUrl, subscriptionReceiptUrl } from '@/server/subscriptions/first-charge';
import {
  hostedSubscriptionHandoff,
  intervalPhrase,
  loadHostedSubscriptionCheckout,
  type HostedSubscriptionOutcome,
  type HostedSubscriptionView,
} from '@/server/subscriptions/hosted';
import { CardFields, CheckoutShell, Field, FormAlert, formatEur, Notice, PaidActions } from '../../checkout/parts';

// Every view reads the checkout and the store's clock at request time.
export const dynamic = 'force-dynamic';

/** GET /subscribe/{id}?expires&signature: the hosted subscription checkout. */
export default async function SubscribePage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const { id } = await params;
  const query = await searchParams;
  const services = await getAppServices();
  const link = hostedLinkFromQuery(id, query);
  // Loaded by proxy.ts for this request; loaded here only when it was not (a HEAD).
  const hosted = hostedSubscriptionHandoff.take(await headers()) ?? (await loadHostedSubscriptionCheckout(services, link));

  if (hosted.state === 'invalid') notFound();
  if (hosted.state === 'expired') {
    return (
      <CheckoutShell storeName={hosted.storeName}>
        <Notice title="This subscription checkout has expired" tone="info">
          <p>The time to subscribe on this page has run out, and nothing was charged. Go back to {hosted.storeName} to start again.</p>
        </Notice>
      </CheckoutShell>
    );
  }
  const { view } = hosted;
  if (hosted.state === 'used') {
    return (
      <CheckoutShell storeName={view.storeName} livemode={view.livemode}>
        <AttemptOutcome view={view} subscription={hosted.subscription} continueUrl={subscribedRedirectUrl(services.config, view, hosted.subscription.id)} receiptUrl={subscriptionReceiptUrl(services.config, view.id)} />
      </CheckoutShell>
    );
  }

  const error = hostedMessage(singleParam(query.error));
  // Verified by loadHostedSubscriptionCheckout: both are present.
  const action = hostedPagePath('subscription_checkout', { id: view.id, expires: link.expires!, signature: link.signature! }, {}, '/pay');
  const every = intervalPhrase(view.interval, view.intervalCount);
  return (
    <CheckoutShell storeName={view.storeName} livemode={view.livemode} recurring>
      <div className="co-grid">
        <div className="co-intro">
          <h1 className="co-h1">
            <span className="co-h1-label">Subscribe to {view.planName}</span>
            <span className="co-amount">
              {formatEur(view.amount)} {every}
            </span>
          </h1>
          <PlanSummary view={view} />
        </div>
        <SubscribeForm view={view} action={action} error={error} every={every} />
      </div>
    </CheckoutShell>
  );
}

function PlanSummary({ view }: { view: HostedSubscriptionView }) {
  return (
    <section className="co-card co-summary" aria-labelledby="plan-heading">
      <h2 id="plan-heading" className="co-h2">
        Plan
      </h2>
      <dl className="co-totals">
        <div>
          <dt>Plan</dt>
          <dd>{view.planName}</dd>
        </div>
        <div>
          <dt>Billed</dt>
          <dd>{intervalPhrase(view.interval, view.intervalCount)}</dd>
        </div>
        <div>
          <dt>Payments</dt>
          <dd>{view.totalPayments === 1 ? 'one payment' : `${view.totalPayments} payments in all`}</dd>
        </div>
        <div className="co-total">
          <dt>Due today</dt>
          <dd>{formatEur(view.amount)}</dd>
        </div>
      </dl>
    </section>
  );
}

function SubscribeForm({ view, action, error, every }: { view: HostedSubscriptionView; action: string; error: ReturnType<typeof hostedMessage>; every: string }) {
  const fieldError = (name: HostedField) => (error?.field === name ? error.message : undefined);
  return (
    <section className="co-card co-pay" aria-labelledby="pay-heading">
      <h2 id="pay-heading" className="co-h2">
        Payment details
      </h2>
      <FormAlert error={error} />
      {/* A plain POST: subscribing works without client-side JavaScript. The link is single-use: the first attempt consumes it. */}
      <form method="post" action={action} className="co-form">
        <Field name="email" label="Email">
          {(props) => <input {...props} type="email" value={view.customerEmail} readOnly aria-readonly="true" />}
        </Field>
        {view.customerName ? (
          <p className="co-prefilled">
            Subscriber <strong>{view.customerName}</strong>
          </p>
        ) : null}
        <CardFields fieldError={fieldError} />
        <button type="submit" className="co-button co-pay-button">
          Subscribe: {formatEur(view.amount)} {every}
        </button>
      </form>
    </section>
  );
}

/** What became of the link's one payment attempt: the first attempt consumes the link. */
function AttemptOutcome({ view, subscription, continueUrl, receiptUrl }: { view: HostedSubscriptionView; subscription: HostedSubscriptionOutcome; continueUrl: string; receiptUrl: string }) {
  if (subscription.status === 'pending') {
    return (
      <Notice title="Confirming your payment" tone="info">
        <p>We could not yet confirm whether your first payment went through. Please do not subscribe again: check your email or contact {view.storeName}.</p>
      </Notice>
    );
  }
  if (subscription.status === 'incomplete') {
    const message =
      subscription.failureCode === 'authentication_required'
        ? 'The payment was declined: your bank’s 3-D Secure check was not completed. No payment was taken.'
        : subscription.failureCode === 'processing_error'
          ? 'The payment was declined: it could not be sent to the payment network. No payment was taken.'
          : failureMessage(subscription.failureCode);
    return (
      <Notice title="Payment failed" tone="error">
        <div role="alert" className="co-alert">
          <p>{message}</p>
        </div>
        <p>This subscription link cannot be used again. Go back to {view.storeName} to start a new subscription.</p>
      </Notice>
    );
  }
  return (
    <Notice title="You are subscribed" tone="success">
      <p>
        {view.planName}: {formatEur(view.amount)} {intervalPhrase(view.interval, view.intervalCount)} to {view.storeName}. This link has been used.
      </p>
      <PaidActions receiptUrl={receiptUrl} continueUrl={view.successUrl ? continueUrl : undefined} storeName={view.storeName} />
    </Notice>
  );
}
