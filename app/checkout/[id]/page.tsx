import type { Metadata } from 'next';
import { cookies, headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { getAppServices } from '@/server/app';
import { checkoutPageTexts, hostedCheckoutHandoff, loadHostedCheckout, type HostedCheckout, type HostedCheckoutView } from '@/server/checkout/hosted/page';
import { REMEMBERED_BILLING_COOKIE, REMEMBERED_EMAIL_COOKIE, REMEMBERED_VAT_ID_COOKIE, rememberedBilling, rememberedEmail, rememberedVatId } from '@/server/checkout/hosted/email';
import { BILLING_QUERY, billingFieldErrors, billingPostOf, billingStateOf, totalChangedMessage, type BillingErrors, type PageTexts } from '@/server/checkout/hosted/billing';
import type { BillingForm } from '@/server/vat/billing';
import { VAT_ID_MAX_LENGTH } from '@/server/vat/vat-id';
import { failureMessage, hostedMessage, type HostedField } from '@/server/kit/hosted-page/messages';
import { hostedLinkFromQuery, singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { hostedPagePath, paidRedirectUrl, receiptUrl as signedReceiptUrl } from '@/server/kit/links';
import { BillingFields, CardFields, CheckoutShell, Field, FormAlert, FormStatus, Notice, OrderSummary, PaidActions, PaymentForm, PromotionCodeForm, SellerLine, WithdrawalWaiverFields } from '../parts';
import { formatEur } from '@/server/kit/hosted-page/amounts';

// Every view reads the session and the store's clock at request time.
export const dynamic = 'force-dynamic';

type PageProps = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

/** Loaded by proxy.ts for this request (loaded here only when it was not: a HEAD); once per request, for the title and the page. */
const hostedCheckout = cache(async (id: string, expires: string | undefined, signature: string | undefined): Promise<HostedCheckout> => {
  const services = await getAppServices();
  return hostedCheckoutHandoff.take(await headers()) ?? (await loadHostedCheckout(services, { id, expires, signature }));
});

async function hostedCheckoutOf({ params, searchParams }: PageProps) {
  const link = hostedLinkFromQuery((await params).id, await searchParams);
  return { link, hosted: await hostedCheckout(link.id, link.expires, link.signature) };
}

/** The tab names the store and the amount. */
export async function generateMetadata(props: PageProps): Promise<Metadata> {
  const { hosted } = await hostedCheckoutOf(props);
  if (hosted.state === 'invalid') return {};
  if (hosted.state === 'expired') return { title: `Checkout expired · ${hosted.storeName}` };
  const { view } = hosted;
  const amount = formatEur(view.amountTotal);
  const titles = { open: checkoutPageTexts(view).title, complete: `Paid ${amount} to ${view.storeName}`, failed: `Payment of ${amount} to ${view.storeName} failed` };
  return { title: titles[hosted.state] };
}

/** GET /checkout/{id}?expires&signature: the hosted payment page. */
export default async function CheckoutPage(props: PageProps) {
  const { link, hosted } = await hostedCheckoutOf(props);
  const query = await props.searchParams;
  const services = await getAppServices();
  const { operator } = services.config;

  if (hosted.state === 'invalid') notFound();
  if (hosted.state === 'expired') {
    return (
      <CheckoutShell store={{ name: hosted.storeName, links: hosted.storeLinks }} operator={operator}>
        <Notice title="This checkout has expired" tone="info">
          <p>The time to pay on this page has run out, and nothing was charged. Go back to {hosted.storeName} to start a new checkout.</p>
          {hosted.cancelUrl ? <BackLink href={hosted.cancelUrl} storeName={hosted.storeName} /> : null}
        </Notice>
      </CheckoutShell>
    );
  }

  const { view } = hosted;
  const store = { name: view.storeName, links: view.storeLinks };
  if (hosted.state === 'complete') {
    return (
      <CheckoutShell store={store} operator={operator}>
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
      <CheckoutShell store={store} operator={operator}>
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
  const post = billingPostOf({ errors: singleParam(query[BILLING_QUERY.errors]), notice: singleParam(query[BILLING_QUERY.notice]) });
  // Only after a post of the form: a fresh visit starts with an empty form (or the billing details the session holds).
  const jar = error || post.posted ? await cookies() : undefined;
  const email = rememberedEmail(jar?.get(REMEMBERED_EMAIL_COOKIE)?.value);
  const vatId = rememberedVatId(jar?.get(REMEMBERED_VAT_ID_COOKIE)?.value);
  const billing = view.buyer && billingStateOf(view.buyer, post, rememberedBilling(jar?.get(REMEMBERED_BILLING_COOKIE)?.value));
  // Verified by loadHostedCheckout: both are present.
  const signed = { id: view.id, expires: link.expires!, signature: link.signature! };
  const texts = checkoutPageTexts(view);
  const discountAction = hostedPagePath('checkout', signed, {}, '/discount');
  return (
    <CheckoutShell store={store} operator={operator} testCards={view.livemode ? undefined : 'one-time'}>
      <div className="co-grid">
        <div className="co-intro">
          <h1 className="co-h1">
            <span className="co-h1-label">Pay {view.storeName}</span>
            <span className="co-amount" data-bind="heading">
              {texts.heading}
            </span>
          </h1>
          <SellerLine operator={operator} storeName={view.storeName} />
          <OrderSummary amounts={view} heading="Order summary" headingId="summary-heading" live={view.buyer !== undefined} discountAction={discountAction} />
          {/* One discount at a time: the field returns once a typed code is removed. */}
          {view.allowPromotionCodes && view.discount === null ? <PromotionCodeForm action={discountAction} error={error?.code === 'code_invalid' ? error.message : undefined} /> : null}
        </div>
        <CheckoutForm
          view={view}
          texts={texts}
          action={hostedPagePath('checkout', signed, {}, '/pay')}
          billingAction={billing && hostedPagePath('checkout', signed, {}, '/billing')}
          error={error?.code === 'code_invalid' ? undefined : error}
          email={error?.field === 'email' ? undefined : email}
          vatId={vatId}
          billing={billing}
        />
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

/** The billing details to show where the session is taxed by the buyer's country: as typed, or as the session holds them. */
interface BillingState {
  form: BillingForm;
  errors: BillingErrors;
  vatIdUnconfirmed: boolean;
  /** The Pay just refused charged nothing: its total was no longer the session's. */
  totalChanged: boolean;
}

function CheckoutForm({
  view,
  texts,
  action,
  billingAction,
  error,
  email,
  vatId,
  billing,
}: {
  view: HostedCheckoutView;
  texts: PageTexts;
  action: string;
  billingAction: string | undefined;
  error: ReturnType<typeof hostedMessage>;
  email: string | undefined;
  vatId: string | undefined;
  billing: BillingState | undefined;
}) {
  const fieldError = (name: HostedField) => (error?.field === name ? error.message : undefined);
  return (
    <section className="co-card co-pay" aria-labelledby="pay-heading">
      <h2 id="pay-heading" className="co-h2">
        Payment details
      </h2>
      <FormAlert error={error} fields={billing ? billingFieldErrors(billing.errors).map((refused) => refused.field) : []} />
      <FormStatus message={billing?.totalChanged ? totalChangedMessage(view.amountTotal) : undefined} />
      <PaymentForm action={action} readAt={view.readAt} billingAction={billingAction}>
        {view.customerEmail ? (
          <p className="co-prefilled">
            Receipt to <strong>{view.customerEmail}</strong>
          </p>
        ) : (
          <Field name="email" label="Email" error={fieldError('email')}>
            {(props) => <input {...props} type="email" autoComplete="email" inputMode="email" spellCheck={false} maxLength={254} defaultValue={email} required />}
          </Field>
        )}
        {billing ? (
          <BillingFields form={billing.form} errors={billing.errors} vatIdUnconfirmed={billing.vatIdUnconfirmed} shownTotal={view.amountTotal} />
        ) : (
          <Field name="vat_id" label="VAT ID" hint="Optional, for business purchases in the EU, e.g. DE123456789" error={fieldError('vat_id')}>
            {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} autoCapitalize="characters" maxLength={VAT_ID_MAX_LENGTH} defaultValue={vatId} />}
          </Field>
        )}
        {/* A total of 0 (a whole discount) is paid without a card. */}
        {view.amountTotal > 0 ? <CardFields fieldError={fieldError} /> : null}
        {view.hasDigitalProduct ? <WithdrawalWaiverFields /> : null}
        <button type="submit" className="co-button co-pay-button" data-bind="pay">
          {texts.pay}
        </button>
        {view.cancelUrl ? (
          <p className="co-cancel">
            <a className="co-link" href={view.cancelUrl}>
              Cancel and return to {view.storeName}
            </a>
          </p>
        ) : null}
      </PaymentForm>
    </section>
  );
}
