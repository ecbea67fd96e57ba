import { cookies, headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { hostedCheckoutHandoff, loadHostedCheckout, type HostedCheckoutView } from '@/server/checkout/hosted/page';
import { REMEMBERED_EMAIL_COOKIE, rememberedEmail } from '@/server/checkout/hosted/email';
import { failureMessage, hostedMessage, type HostedField } from '@/server/kit/hosted-page/messages';
import { hostedLinkFromQuery, singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { hostedPagePath, paidRedirectUrl, receiptUrl as signedReceiptUrl } from '@/server/kit/links';
import { CardFields, CheckoutShell, Field, FormAlert, formatEur, Notice, OrderSummary, PaidActions } from '../parts';

// Every view reads the session and the store's clock at request time.
export const dynamic = 'force-dynamic';

/** GET /checkout/{id}?expires&signature: the hosted payment page. */
export default async function CheckoutPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const { id } = await params;
  const query = await searchParams;
  const services = await getAppServices();
  const link = hostedLinkFromQuery(id, query);
  // Loaded by proxy.ts for this request; loaded here only when it was not (a HEAD).
  const hosted = hostedCheckoutHandoff.take(await headers()) ?? (await loadHostedCheckout(services, link));

  if (hosted.state === 'invalid') notFound();
  if (hosted.state === 'expired') {
    return (
      <CheckoutShell storeName={hosted.storeName}>
        <Notice title="This checkout has expired" tone="info">
          <p>The time to pay on this page has run out, and nothing was charged. Go back to {hosted.storeName} to start a new checkout.</p>
          {hosted.cancelUrl ? <BackLink href={hosted.cancelUrl} storeName={hosted.storeName} /> : null}
        </Notice>
      </CheckoutShell>
    );
  }

  const { view } = hosted;
  if (hosted.state === 'complete') {
    return (
      <CheckoutShell storeName={view.storeName} livemode={view.livemode}>
        <Notice title="Already paid" tone="success">
          <p>
            This checkout was paid: {formatEur(view.amountTotal)} to {view.storeName}. Nothing more is due.
          </p>
          <PaidActions receiptUrl={signedReceiptUrl(services.config, view.id)} continueUrl={view.successUrl ? paidRedirectUrl(services.config, view) : undefined} storeName={view.storeName} />
        </Notice>
      </CheckoutShell>
    );
  }

  if (hosted.state === 'failed') {
    return (
      <CheckoutShell storeName={view.storeName} livemode={view.livemode}>
        <Notice title="Payment failed" tone="error">
          <div role="alert" className="co-alert">
            <p>{failureMessage(view.failureCode)}</p>
          </div>
          <p>This checkout cannot be paid again. Go back to {view.storeName} to start a new one.</p>
          {view.cancelUrl ? <BackLink href={view.cancelUrl} storeName={view.storeName} /> : null}
        </Notice>
      </CheckoutShell>
    );
  }

  const error = hostedMessage(singleParam(query.error));
  // Only after a failed attempt: a fresh visit starts with an empty form.
  const email = error ? rememberedEmail((await cookies()).get(REMEMBERED_EMAIL_COOKIE)?.value) : undefined;
  // Verified by loadHostedCheckout: both are present.
  const action = hostedPagePath('checkout', { id: view.id, expires: link.expires!, signature: link.signature! }, {}, '/pay');
  return (
    <CheckoutShell storeName={view.storeName} livemode={view.livemode}>
      <div className="co-grid">
        <div className="co-intro">
          <h1 className="co-h1">
            <span className="co-h1-label">Pay {view.storeName}</span>
            <span className="co-amount">{formatEur(view.amountTotal)}</span>
          </h1>
          <OrderSummary amounts={view} heading="Order summary" headingId="summary-heading" />
        </div>
        <PaymentForm view={view} action={action} error={error} email={error?.field === 'email' ? undefined : email} />
      </div>
    </CheckoutShell>
  );
}

function BackLink({ href, storeName }: { href: string; storeName: string }) {
  return (
    <p>
      <a className="co-link" href={href}>
        Return to {storeName}
      </a>
    </p>
  );
}

function PaymentForm({ view, action, error, email }: { view: HostedCheckoutView; action: string; error: ReturnType<typeof hostedMessage>; email: string | undefined }) {
  const fieldError = (name: HostedField) => (error?.field === name ? error.message : undefined);
  return (
    <section className="co-card co-pay" aria-labelledby="pay-heading">
      <h2 id="pay-heading" className="co-h2">
        Payment details
      </h2>
      <FormAlert error={error} />
      {/* A plain POST: paying works without client-side JavaScript. */}
      <form method="post" action={action} className="co-form">
        {view.customerEmail ? (
          <p className="co-prefilled">
            Receipt to <strong>{view.customerEmail}</strong>
          </p>
        ) : (
          <Field name="email" label="Email" error={fieldError('email')}>
            {(props) => <input {...props} type="email" autoComplete="email" inputMode="email" spellCheck={false} maxLength={254} defaultValue={email} required />}
          </Field>
        )}
        <CardFields fieldError={fieldError} />
        <button type="submit" className="co-button co-pay-button">
          Pay {formatEur(view.amountTotal)}
        </button>
        {view.cancelUrl ? (
          <p className="co-cancel">
            <a className="co-link" href={view.cancelUrl}>
              Cancel and return to {view.storeName}
            </a>
          </p>
        ) : null}
      </form>
    </section>
  );
}
