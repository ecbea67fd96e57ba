import type { Metadata } from 'next';
import { cookies, headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { getAppServices } from '@/server/app';
import type { OperatorConfig } from '@/server/config';
import { failureMessage, hostedMessage, type HostedField } from '@/server/kit/hosted-page/messages';
import { hostedLinkFromQuery, type SearchParams, singleParam } from '@/server/kit/hosted-page/request';
import { hostedPagePath } from '@/server/kit/links';
import { CANCEL_LINK_TEXT, cancelPageUrl } from '@/server/kit/hosted-page/cancel-link';
import { subscribedRedirectUrl, subscriptionReceiptUrl } from '@/server/subscriptions/first-charge';
import {
  daysPhrase,
  firstChargeOf,
  hostedSubscriptionHandoff,
  intervalPhrase,
  loadHostedSubscriptionCheckout,
  plannedCharges,
  type HostedSubscriptionCheckout,
  type HostedSubscriptionOutcome,
  type HostedSubscriptionView,
  subscriptionPageTexts,
} from '@/server/subscriptions/hosted';
import { BillingFields, CardFields, CheckoutShell, DiscountRow, Field, FormAlert, FormStatus, formatDate, Notice, PaidActions, PaymentForm, PromotionCodeForm, SellerLine } from '../../checkout/parts';
import { formatEur } from '@/server/kit/hosted-page/amounts';
import { REMEMBERED_BILLING_COOKIE, rememberedBilling } from '@/server/checkout/hosted/email';
import { BILLING_QUERY, billingFieldErrors, billingPostOf, billingStateOf, summaryTexts, totalChangedMessage, type BillingErrors } from '@/server/checkout/hosted/billing';
import type { BillingForm } from '@/server/vat/billing';

// Every view reads the checkout and the store's clock at request time.
export const dynamic = 'force-dynamic';

type PageProps = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

/** Loaded by proxy.ts for this request (loaded here only when it was not: a HEAD); once per request, for the title and the page. */
const hostedSubscription = cache(async (id: string, expires: string | undefined, signature: string | undefined): Promise<HostedSubscriptionCheckout> => {
  const services = await getAppServices();
  return hostedSubscriptionHandoff.take(await headers()) ?? (await loadHostedSubscriptionCheckout(services, { id, expires, signature }));
});

async function hostedSubscriptionOf({ params, searchParams }: PageProps) {
  const link = hostedLinkFromQuery((await params).id, await searchParams);
  return { link, hosted: await hostedSubscription(link.id, link.expires, link.signature) };
}

/** The tab names the store, the plan and its amount. */
export async function generateMetadata(props: PageProps): Promise<Metadata> {
  const { hosted } = await hostedSubscriptionOf(props);
  if (hosted.state === 'invalid') return {};
  if (hosted.state === 'expired') return { title: `Subscription checkout expired · ${hosted.storeName}` };
  const { view } = hosted;
  const price = `${formatEur(view.amount)} ${intervalPhrase(view.interval, view.intervalCount)}`;
  return { title: hosted.state === 'open' ? subscriptionPageTexts(view).title : `${view.planName}: ${price} · ${view.storeName}` };
}

/** GET /subscribe/{id}?expires&signature: the hosted subscription checkout. */
export default async function SubscribePage(props: PageProps) {
  const { link, hosted } = await hostedSubscriptionOf(props);
  const query = await props.searchParams;
  const services = await getAppServices();
  const { operator } = services.config;

  if (hosted.state === 'invalid') notFound();
  if (hosted.state === 'expired') {
    return (
      <CheckoutShell store={{ name: hosted.storeName, links: hosted.storeLinks }} operator={operator}>
        <Notice title="This subscription checkout has expired" tone="info">
          <p>The time to subscribe on this page has run out, and nothing was charged. Go back to {hosted.storeName} to start again.</p>
        </Notice>
      </CheckoutShell>
    );
  }
  const { view } = hosted;
  const store = { name: view.storeName, links: view.storeLinks };
  if (hosted.state === 'used') {
    return (
      <CheckoutShell store={store} operator={operator}>
        <AttemptOutcome
          view={view}
          subscription={hosted.subscription}
          continueUrl={subscribedRedirectUrl(services.config, view, hosted.subscription.id)}
          receiptUrl={subscriptionReceiptUrl(services.config, view.id)}
        />
      </CheckoutShell>
    );
  }

  const queried = hostedMessage(singleParam(query.error));
  // The code field's refusal is said under it; every other beside the payment form.
  const codeError = queried?.code === 'code_invalid' ? queried.message : undefined;
  const error = codeError ? undefined : queried;
  const post = billingPostOf({ errors: singleParam(query[BILLING_QUERY.errors]), notice: singleParam(query[BILLING_QUERY.notice]) });
  // Only after a post of the form: a fresh visit shows the billing details the checkout holds.
  const jar = view.buyer && (error || post.posted) ? await cookies() : undefined;
  const billing = view.buyer && billingStateOf(view.buyer, post, rememberedBilling(jar?.get(REMEMBERED_BILLING_COOKIE)?.value));
  // Verified by loadHostedSubscriptionCheckout: both are present.
  const signed = { id: view.id, expires: link.expires!, signature: link.signature! };
  const texts = subscriptionPageTexts(view);
  return (
    <CheckoutShell store={store} operator={operator} testCards={view.livemode ? undefined : 'recurring'}>
      <div className="co-grid">
        <div className="co-intro">
          <h1 className="co-h1">
            <span className="co-h1-label">Subscribe to {view.planName}</span>
            <span className="co-amount" data-bind="heading">
              {texts.heading}
            </span>
          </h1>
          <SellerLine operator={operator} storeName={view.storeName} />
          <PlanSummary view={view} discountAction={hostedPagePath('subscription_checkout', signed, {}, '/discount')} codeError={codeError} />
        </div>
        <SubscribeForm
          view={view}
          operator={operator}
          texts={texts}
          action={hostedPagePath('subscription_checkout', signed, {}, '/pay')}
          billingAction={billing && hostedPagePath('subscription_checkout', signed, {}, '/billing')}
          error={error}
          billing={billing}
        />
      </div>
    </CheckoutShell>
  );
}

/** The billing details to show where the checkout is taxed by the buyer's country: as typed, or as the checkout holds them. */
interface BillingState {
  form: BillingForm;
  errors: BillingErrors;
  vatIdUnconfirmed: boolean;
  /** The Subscribe just refused burnt nothing: its total was no longer the first charge's. */
  totalChanged: boolean;
}

/** How many payments, in words: a plan with the most payments a plan may have runs until canceled. */
function paymentsText(view: HostedSubscriptionView): string {
  const { last } = plannedCharges(view);
  if (last === null) return 'until you cancel';
  return view.totalPayments === 1 ? 'one, today' : `${view.totalPayments.toLocaleString('en-IE')} in all, the last on ${formatDate(last)}`;
}

/**
 * The plan, and what is due today: where the buyer's country taxes it, with its VAT, the texts
 * marked `data-bind` following the billing details (the form's script replaces them in place).
 */
function PlanSummary({ view, discountAction, codeError }: { view: HostedSubscriptionView; discountAction: string; codeError: string | undefined }) {
  const { next } = plannedCharges(view);
  const summary = view.buyer && summaryTexts(view.buyer);
  return (
    <section className="co-card co-summary" aria-labelledby="plan-heading">
      <h2 id="plan-heading" className="co-h2">
        Your subscription
      </h2>
      <dl className="co-totals">
        <div>
          <dt>Billed</dt>
          <dd>{intervalPhrase(view.interval, view.intervalCount)}</dd>
        </div>
        <div>
          <dt>Payments</dt>
          <dd>{paymentsText(view)}</dd>
        </div>
        {view.trialDays === null ? null : (
          <div>
            <dt>Free trial</dt>
            <dd>{daysPhrase(view.trialDays)}</dd>
          </div>
        )}
        {next === null ? null : (
          <div>
            <dt>{view.trialDays === null ? 'Next payment' : 'First payment'}</dt>
            <dd>{formatDate(next)}</dd>
          </div>
        )}
        {/* A code the customer typed may be taken off again; a discount the store gave may not. */}
        {view.discount ? <DiscountRow label={view.discount.label} amount={view.discount.amountOff} removeAction={view.allowPromotionCodes ? discountAction : undefined} /> : null}
        {view.discount && view.trialDays !== null ? (
          <div>
            <dt>First payment after the discount</dt>
            <dd>{formatEur(firstChargeOf(view))}</dd>
          </div>
        ) : null}
        {summary ? (
          <>
            <div>
              <dt>Subtotal</dt>
              <dd data-bind="subtotal">{summary.subtotal}</dd>
            </div>
            <div>
              <dt data-bind="tax-label">{summary['tax-label']}</dt>
              <dd data-bind="tax">{summary.tax}</dd>
            </div>
          </>
        ) : null}
        <div className="co-total">
          <dt>Due today</dt>
          <dd data-bind="total">{subscriptionPageTexts(view).total}</dd>
        </div>
      </dl>
      {/* One discount at a time: the field returns once a typed code is removed. */}
      {view.allowPromotionCodes && view.discount === null ? <PromotionCodeForm action={discountAction} error={codeError} /> : null}
    </section>
  );
}

/**
 * What the customer allows by subscribing, in one sentence naming the seller, the amount, how
 * often and until when; then when the next payment is taken and how to stop it.
 */
function Mandate({ view, operator, total }: { view: HostedSubscriptionView; operator: OperatorConfig; total: string }) {
  const { next, last } = plannedCharges(view);
  const every = intervalPhrase(view.interval, view.intervalCount);
  // The first charge: today's, or after a trial (not today's €0.00).
  const first = view.trialDays === null ? <span data-bind="total">{total}</span> : <span>{formatEur(firstChargeOf(view))}</span>;
  // Every charge: the plan's price (a discount reaches only the charges its terms allow); where the buyer's country taxes it, the first as taxed.
  const amount = view.buyer ? first : <span>{formatEur(view.amount)}</span>;
  return (
    <div className="co-mandate">
      {view.totalPayments === 1 ? (
        <p>
          By subscribing you allow {operator.legalName} to charge your card {first} once, {view.trialDays === null ? 'today' : 'when the free trial ends'}.
        </p>
      ) : (
        <p>
          By subscribing you allow {operator.legalName} to charge your card {amount} {every} until{' '}
          {last === null ? 'you cancel' : `the last payment on ${formatDate(last)} (${view.totalPayments.toLocaleString('en-IE')} payments in all)`}.
          {view.buyer ? ' Each payment is taxed at the VAT rate of its date.' : ''}
          {view.discount ? ` The discount (${view.discount.label}) is taken off the payments its terms reach, ${formatEur(view.discount.amountOff)} off the first.` : ''}
        </p>
      )}
      {view.trialDays !== null && next !== null ? (
        <p>
          Nothing is charged today: your card is only checked. The first payment is taken on {formatDate(next)}, when the free trial ends, unless you cancel before then with{' '}
          <a className="co-link" href={cancelPageUrl()}>
            {CANCEL_LINK_TEXT.en}
          </a>{' '}
          or ask {view.storeName}.
        </p>
      ) : next === null ? null : (
        <p>
          The first payment is taken today, the next on {formatDate(next)}. To cancel, use{' '}
          <a className="co-link" href={cancelPageUrl()}>
            {CANCEL_LINK_TEXT.en}
          </a>{' '}
          or ask {view.storeName}: no payment is taken after the period you have paid for.
        </p>
      )}
    </div>
  );
}

function SubscribeForm({
  view,
  operator,
  texts,
  action,
  billingAction,
  error,
  billing,
}: {
  view: HostedSubscriptionView;
  operator: OperatorConfig;
  texts: ReturnType<typeof subscriptionPageTexts>;
  action: string;
  billingAction: string | undefined;
  error: ReturnType<typeof hostedMessage>;
  billing: BillingState | undefined;
}) {
  const fieldError = (name: HostedField) => (error?.field === name ? error.message : undefined);
  return (
    <section className="co-card co-pay" aria-labelledby="pay-heading">
      <h2 id="pay-heading" className="co-h2">
        Payment details
      </h2>
      <FormAlert error={error} fields={billing ? billingFieldErrors(billing.errors).map((refused) => refused.field) : []} />
      <FormStatus message={billing?.totalChanged ? totalChangedMessage(firstChargeOf(view)) : undefined} />
      {/* The link is single-use: the first attempt consumes it. */}
      <PaymentForm action={action} readAt={view.readAt} billingAction={billingAction}>
        <Field name="email" label="Email" hint={`Given by ${view.storeName}; receipts go here`}>
          {(props) => <input {...props} type="email" value={view.customerEmail} readOnly aria-readonly="true" />}
        </Field>
        {billing ? (
          <BillingFields form={billing.form} errors={billing.errors} vatIdUnconfirmed={billing.vatIdUnconfirmed} shownTotal={firstChargeOf(view)} />
        ) : view.customerName ? (
          <p className="co-prefilled">
            Subscriber <strong>{view.customerName}</strong>
          </p>
        ) : null}
        <CardFields fieldError={fieldError} />
        <Mandate view={view} operator={operator} total={texts.total} />
        <button type="submit" className="co-button co-pay-button" data-bind="pay">
          {texts.pay}
        </button>
      </PaymentForm>
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
  if (subscription.status === 'trialing') {
    return (
      <Notice title="Your free trial has started" tone="success">
        <p>
          {view.planName} is free for {daysPhrase(view.trialDays ?? 0)}; the first payment of {formatEur(firstChargeOf(view))} is taken on {formatDate(subscription.nextBillingAt)}. This link has been
          used.
        </p>
        <PaidActions receiptUrl={receiptUrl} continueUrl={view.successUrl ? continueUrl : undefined} storeName={view.storeName} />
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
