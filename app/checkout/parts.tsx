import type { ReactNode } from 'react';
import type { DocumentLanguage } from '@/db/schema';
import { CURRENT_WAIVER_VERSION, WAIVER_FIELDS, WAIVER_TEXTS } from '@/server/orders/withdrawals/waiver';
import type { OperatorConfig } from '@/server/config';
import { formatEur } from '@/server/kit/hosted-page/amounts';
import { cardBrandName } from '@/server/kit/card-brand';
import type { TaxLabel } from '@/server/kit/hosted-page/tax-label';
import { PAYMENT_FORM_SCRIPT } from '@/server/checkout/hosted/payment-form-script';
import { correctionAlert, type HostedField, type HostedMessage } from '@/server/kit/hosted-page/messages';
import { countryOptions } from '@/server/kit/countries';
import { BILLING_FORM_FIELDS, summaryTexts, VAT_ID_UNCONFIRMED_MESSAGE, type BillingErrors } from '@/server/checkout/hosted/billing';
import { BILLING_FIELDS, BILLING_LABELS, billingErrorMessage, type BillingField, type BillingForm } from '@/server/vat/billing';
import { VAT_ID_MAX_LENGTH } from '@/server/vat/vat-id';
import type { StoreLinks } from '@/server/stores/service';
import type { DownloadLink } from '@/server/downloads/service';
import { CANCEL_LINK_TEXT, cancelPageUrl } from '@/server/kit/hosted-page/cancel-link';
import { discountRowLabel, PROMOTION_CODE_FIELDS, type SummaryDiscount } from '@/server/kit/hosted-page/discount';
import { FRAME_TEXTS } from './texts';

// The pages' formats, shared with the server's answers to the form's script.

/** One format for every date on the hosted pages ("26 November 2026"), in UTC as every clock here. */
const DATE = new Intl.DateTimeFormat('en-IE', { dateStyle: 'long', timeZone: 'UTC' });

export function formatDate(epochSeconds: number): string {
  return DATE.format(new Date(epochSeconds * 1000));
}

/** The signed download links of an order's files, one per line (receipt and portal). */
export function DownloadLinks({ downloads, className }: { downloads: readonly DownloadLink[]; className: string }) {
  return (
    <ul className={className}>
      {downloads.map((download, index) => (
        <li key={index}>
          {download.url ? (
            <a className="co-link" href={download.url}>
              Download {download.description}
            </a>
          ) : (
            <>{download.description}: download limit reached</>
          )}{' '}
          <span className="co-hint">
            (downloaded {download.downloadCount} of {download.downloadLimit} {download.downloadLimit === 1 ? 'time' : 'times'})
          </span>
        </li>
      ))}
    </ul>
  );
}

/** `Visa ending in 4242` (`Visa mit Endziffern 4242`): brand and last 4 are all that is kept of a card. */
export function cardText(brand: string | null, last4: string, language: DocumentLanguage = 'en'): string {
  return FRAME_TEXTS[language].cardEnding(cardBrandName(brand), last4);
}

/** The store a hosted page is for: its name, logo and links. */
export interface PageStore {
  name: string;
  links: StoreLinks;
}

/**
 * Header with the merchant (its logo when it has one), the main landmark, and a footer with the
 * seller's details (the operator sells as merchant of record) and the store's terms and privacy
 * links. A test-mode page that takes a card (`testCards`) lists the cards to use; the other
 * pages (receipts, outcomes) have no use for the list. In the page's `language` (English unless given).
 */
export function CheckoutShell({
  store,
  operator,
  testCards,
  subscriptionId,
  cardNote = 'Card details are used for this payment only and never stored.',
  language = 'en',
  children,
}: {
  store?: PageStore;
  operator?: OperatorConfig;
  testCards?: 'one-time' | 'recurring';
  /** The subscription the page is about, which the footer's cancel link names. */
  subscriptionId?: string;
  /** What becomes of the card typed on the page. */
  cardNote?: string;
  language?: DocumentLanguage;
  children: ReactNode;
}) {
  const text = FRAME_TEXTS[language];
  return (
    <>
      <a className="co-skip" href="#main">
        {text.skip}
      </a>
      {testCards ? <TestModeBanner recurring={testCards === 'recurring'} language={language} /> : null}
      <header className="co-header">
        <div className="co-header-inner">
          {store ? <MerchantName storeName={store.name} logoUrl={store.links.logoUrl} /> : <p className="co-merchant">Checkout</p>}
          <p className="co-secure">
            <LockIcon /> {text.secure}
          </p>
        </div>
      </header>
      <main id="main" className="co-main">
        {children}
      </main>
      <PageFooter store={store} operator={operator} subscriptionId={subscriptionId} language={language}>
        {cardNote}
      </PageFooter>
    </>
  );
}

/**
 * The footer of every hosted page: who sells (the operator, with the details a customer needs to
 * reach it), the store's terms and privacy policy when it gives them, a line about the page, and
 * the links to withdraw and to cancel.
 */
export function PageFooter({
  store,
  operator,
  subscriptionId,
  language = 'en',
  children,
}: {
  store?: PageStore;
  operator?: OperatorConfig;
  subscriptionId?: string;
  language?: DocumentLanguage;
  children: ReactNode;
}) {
  const text = FRAME_TEXTS[language];
  const links = store
    ? [store.links.termsUrl && { href: store.links.termsUrl, label: text.terms }, store.links.privacyUrl && { href: store.links.privacyUrl, label: text.privacy }].filter((link) => !!link)
    : [];
  return (
    <footer className="co-footer">
      {links.length > 0 ? (
        <nav className="co-footer-links" aria-label={text.policies(store!.name)}>
          {links.map((link) => (
            <a key={link.href} className="co-link" href={link.href}>
              {link.label}
            </a>
          ))}
        </nav>
      ) : null}
      {operator ? (
        <p>
          {text.seller}: {operator.legalName}, {operator.address}, {text.vatId} {operator.vatId},{' '}
          <a className="co-link" href={`mailto:${operator.email}`}>
            {operator.email}
          </a>
          {operator.isDemo ? text.demoSeller : ''}.
        </p>
      ) : null}
      <p>{children}</p>
      <ContractLinks subscriptionId={subscriptionId} language={language} />
    </footer>
  );
}

/** Who sells: the operator, in its own name, on the store's behalf (one sentence on each page that sells). */
export function SellerLine({ operator, storeName }: { operator: OperatorConfig; storeName: string }) {
  return (
    <p className="co-seller">
      Sold by {operator.legalName} on behalf of {storeName}
    </p>
  );
}

/** The merchant's logo (or initial as a mark), then its name: the header of every hosted page. */
export function MerchantName({ storeName, logoUrl }: { storeName: string; logoUrl?: string | null }) {
  return (
    <p className="co-merchant">
      {logoUrl ? (
        // The name follows as text, so the logo adds nothing for a screen reader. A plain <img>: the
        // logo is the merchant's own URL (allowed by the page's CSP), not an asset for Next to optimise.
        <img className="co-merchant-logo" src={logoUrl} alt="" />
      ) : (
        <span className="co-merchant-mark" aria-hidden="true">
          {storeName.trim().charAt(0).toUpperCase()}
        </span>
      )}
      <span>{storeName}</span>
    </p>
  );
}

function LockIcon() {
  return (
    <svg className="co-lock" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M8 1a3.5 3.5 0 0 0-3.5 3.5V6H4a1.5 1.5 0 0 0-1.5 1.5v6A1.5 1.5 0 0 0 4 15h8a1.5 1.5 0 0 0 1.5-1.5v-6A1.5 1.5 0 0 0 12 6h-.5V4.5A3.5 3.5 0 0 0 8 1Zm2 5H6V4.5a2 2 0 1 1 4 0V6Z"
      />
    </svg>
  );
}

/** In test mode the page says so and lists the cards that simulate each outcome. */
export function TestModeBanner({ recurring, language = 'en' }: { recurring?: boolean; language?: DocumentLanguage }) {
  const text = FRAME_TEXTS[language];
  return (
    <aside className="co-test" aria-label={text.testMode}>
      <p>{text.testCards(<code>4242 4242 4242 4242</code>, <code>4000 0000 0000 0002</code>)}</p>
      <p>{text.disputeCards(<code>4000 0000 0000 0259</code>, <code>4000 0000 0000 2685</code>)}</p>
      <p>
        {text.countryCards(<code>4000 0027 6000 0016</code>, <code>4000 0025 0000 0003</code>, <code>4000 0004 0000 0008</code>, <code>4000 0038 0000 0008</code>, <code>4000 0084 0000 0001</code>)}
      </p>
      {recurring ? <p>{text.renewalCards(<code>4000 0000 0000 0341</code>, <code>4000 0000 0000 3063</code>)}</p> : null}
    </aside>
  );
}

export interface SummaryLine {
  description: string;
  quantity: number;
  /** Cents; the line's amount shown is quantity × unit price, before tax added on top. */
  unitAmount: number;
}

export interface SummaryAmounts {
  lines: SummaryLine[];
  /** Taken off the lines before tax: a row between the lines and the subtotal. */
  discount?: SummaryDiscount | null;
  amountSubtotal: number;
  amountTax: number;
  amountTotal: number;
  tax: TaxLabel;
}

/**
 * The order: its lines (name, quantity, unit price), then subtotal, tax and total. `live` where
 * the amounts follow the billing details being typed: the form's script replaces the texts marked
 * `data-bind` in place, and a screen reader hears the new ones.
 */
export function OrderSummary({
  amounts,
  headingId,
  heading,
  totalLabel = 'Total due',
  live = false,
  discountAction,
}: {
  amounts: SummaryAmounts;
  headingId: string;
  heading: string;
  totalLabel?: string;
  live?: boolean;
  /** Where the discount row's `Remove` posts (PromotionCodeForm's action), for a removable discount. */
  discountAction?: string;
}) {
  const texts = summaryTexts(amounts);
  const bind = (name: keyof typeof texts) => (live ? { 'data-bind': name } : {});
  return (
    <section className="co-card co-summary" aria-labelledby={headingId}>
      <h2 id={headingId} className="co-h2">
        {heading}
      </h2>
      <table className="co-lines">
        <caption className="co-visually-hidden">Items, quantities and prices</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col" className="co-num co-wide">
              Qty
            </th>
            <th scope="col" className="co-num co-wide">
              Unit price
            </th>
            <th scope="col" className="co-num">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {amounts.lines.map((line, index) => (
            <tr key={index}>
              <th scope="row" className="co-line-name">
                {line.description}
                {/* Narrow screens drop the two columns and show them here instead. */}
                <span className="co-line-meta">
                  {line.quantity} × {formatEur(line.unitAmount)}
                </span>
              </th>
              <td className="co-num co-wide">{line.quantity}</td>
              <td className="co-num co-wide">{formatEur(line.unitAmount)}</td>
              <td className="co-num">{formatEur(line.unitAmount * line.quantity)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <dl className="co-totals" aria-live={live ? 'polite' : undefined}>
        {amounts.discount ? <DiscountRow label={amounts.discount.label} amount={amounts.discount.amount} removeAction={amounts.discount.removable ? discountAction : undefined} /> : null}
        <div>
          <dt>Subtotal</dt>
          <dd {...bind('subtotal')}>{texts.subtotal}</dd>
        </div>
        <div>
          <dt {...bind('tax-label')}>{texts['tax-label']}</dt>
          <dd {...bind('tax')}>{texts.tax}</dd>
        </div>
        <div className="co-total">
          <dt>{totalLabel}</dt>
          <dd {...bind('total')}>{texts.total}</dd>
        </div>
      </dl>
    </section>
  );
}

/**
 * The summary's discount row, `Discount (SUMMER25)` `−€3.00` (a `dl` entry), with a `Remove`
 * button posting `remove` to `removeAction` when the customer may take it off.
 */
export function DiscountRow({ label, amount, removeAction }: { label: string; amount: number; removeAction?: string }) {
  return (
    <div className="co-discount">
      <dt>{discountRowLabel(label)}</dt>
      <dd>
        {removeAction ? (
          <form method="post" action={removeAction} className="co-inline-form">
            <button type="submit" name={PROMOTION_CODE_FIELDS.remove} value="1" className="co-link-button" aria-label={`Remove ${discountRowLabel(label)}`}>
              Remove
            </button>
          </form>
        ) : null}
        <span>−{formatEur(amount)}</span>
      </dd>
    </div>
  );
}

/**
 * The promotion code field with its `Apply` button, a form of its own (never inside the payment
 * form), posting `promotion_code` to `action`; answered by a redirect back to the page, so it
 * works without JavaScript. `error`: the alert after a code that changed nothing.
 */
export function PromotionCodeForm({ action, error }: { action: string; error?: string }) {
  return (
    <form method="post" action={action} className="co-promo" id="promotion-code">
      {error ? (
        <div role="alert" className="co-alert">
          <p>{error}</p>
        </div>
      ) : null}
      <Field name={PROMOTION_CODE_FIELDS.code} label="Promotion code">
        {(props) => <input {...props} type="text" autoComplete="off" autoCapitalize="characters" spellCheck={false} maxLength={40} required />}
      </Field>
      <button type="submit" className="co-button co-button-secondary">
        Apply
      </button>
    </form>
  );
}

/** A page with one message and at most a way back (expired, invalid, declined, paid). */
export function Notice({ title, tone, children }: { title: string; tone: 'info' | 'error' | 'success'; children: ReactNode }) {
  return (
    <section className={`co-card co-notice co-notice-${tone}`} aria-labelledby="notice-heading">
      <h1 id="notice-heading" className="co-h1">
        {title}
      </h1>
      {children}
    </section>
  );
}

/** The alert above a payment form after a failed attempt: the fields to correct (the error's, then `fields`), or what went wrong. */
export function FormAlert({ error, fields = [], language = 'en' }: { error: HostedMessage | undefined; fields?: readonly HostedField[]; language?: DocumentLanguage }) {
  const toCorrect = [...(error?.field ? [error.field] : []), ...fields];
  if (!error && toCorrect.length === 0) return null;
  return (
    <div role="alert" className="co-alert" id="form-error">
      <p>{toCorrect.length > 0 ? correctionAlert(toCorrect, language) : error?.message}</p>
    </div>
  );
}

/** A change the customer must look at before paying: the total is not what the page showed. */
export function FormStatus({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <div role="status" className="co-status" id="form-status">
      <p>{message}</p>
    </div>
  );
}

/** After a successful payment: the receipt, and the way back to the merchant when it gave one. */
export function PaidActions({ receiptUrl, continueUrl, storeName }: { receiptUrl: string; continueUrl: string | undefined; storeName: string }) {
  return (
    <p className="co-actions">
      <a className="co-button co-button-secondary" href={receiptUrl}>
        View receipt
      </a>
      {continueUrl ? (
        <a className="co-link" href={continueUrl}>
          Continue to {storeName}
        </a>
      ) : null}
    </p>
  );
}

interface InputProps {
  id: string;
  name: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
  /** The field to correct after a failed attempt takes the focus, with or without script. */
  autoFocus?: true;
  className: string;
}

/**
 * A labelled input with its hint and, after a failed attempt, its error tied by aria-describedby
 * (the form's script writes the same markup: server/checkout/hosted/payment-form.browser.ts). `aside`
 * sits at the end of the label's line.
 */
export function Field({ name, label, hint, error, aside, children }: { name: string; label: string; hint?: string; error?: string; aside?: ReactNode; children: (props: InputProps) => ReactNode }) {
  const hintId = hint ? `${name}-hint` : undefined;
  const errorId = error ? `${name}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={error ? 'co-field co-field-invalid' : 'co-field'}>
      <div className="co-label-row">
        <label htmlFor={name}>{label}</label>
        {aside}
      </div>
      {hint ? (
        <span id={hintId} className="co-hint">
          {hint}
        </span>
      ) : null}
      {children({ id: name, name, className: 'co-input', 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy, autoFocus: error ? true : undefined })}
      {error ? (
        <p id={errorId} className="co-field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The card networks accepted, as text marks; the form's script highlights the one the number belongs to. */
const BRAND_MARKS = [
  { brand: 'visa', label: 'Visa' },
  { brand: 'mastercard', label: 'Mastercard' },
  { brand: 'amex', label: 'Amex' },
  { brand: 'discover', label: 'Discover' },
] as const;

function CardBrands({ label }: { label: string }) {
  return (
    <ul className="co-brands" data-brands="" aria-label={label}>
      {BRAND_MARKS.map(({ brand, label }) => (
        <li key={brand} className="co-brand" data-brand={brand}>
          {label}
        </li>
      ))}
    </ul>
  );
}

/**
 * The card inputs of every hosted payment form (accessible labels `Card number`, `Expiry`, `CVC`,
 * or `Kartennummer`, `Ablaufdatum`, `Prüfnummer`, which browser tests find them by).
 */
export function CardFields({ fieldError, language = 'en' }: { fieldError: (name: HostedField) => string | undefined; language?: DocumentLanguage }) {
  const text = FRAME_TEXTS[language];
  return (
    <>
      <Field name="card_number" label={text.cardNumber} error={fieldError('card_number')} aside={<CardBrands label={text.cardsAccepted} />}>
        {(props) => <input {...props} type="text" autoComplete="cc-number" inputMode="numeric" placeholder="1234 1234 1234 1234" maxLength={23} spellCheck={false} required />}
      </Field>
      <div className="co-row">
        <Field name="expiry" label={text.expiry} hint={text.expiryFormat} error={fieldError('expiry')}>
          {/* 1230, 12 30 and 12/2030 are read as well, so the number pad suffices. */}
          {(props) => <input {...props} type="text" autoComplete="cc-exp" inputMode="numeric" placeholder={text.expiryFormat} maxLength={7} required />}
        </Field>
        <Field name="cvc" label={text.cvc} hint={text.cvcHint} error={fieldError('cvc')}>
          {(props) => <input {...props} type="text" autoComplete="cc-csc" inputMode="numeric" placeholder="123" maxLength={4} required />}
        </Field>
      </div>
    </>
  );
}

/**
 * The ways out of a contract, in the footer of every page a customer of a store sees: to withdraw
 * (left out on the withdrawal pages themselves) and to cancel, the one subscription prefilled
 * where the page is about it.
 */
export function ContractLinks({ subscriptionId, language = 'en' }: { subscriptionId?: string; language?: DocumentLanguage }) {
  return (
    <p className="co-contract-links">
      {/* The withdrawal form is English only. */}
      <a className="co-link" href="/withdraw" lang={language === 'en' ? undefined : 'en'}>
        Withdraw from contract here
      </a>
      <a className="co-link" href={cancelPageUrl({ subscriptionId, language })}>
        {CANCEL_LINK_TEXT[language]}
      </a>
    </p>
  );
}

/**
 * The two optional checkboxes of a checkout with a digital product: both ticked waive the right of
 * withdrawal so delivery can start at once; one alone waives nothing.
 */
export function WithdrawalWaiverFields() {
  const text = WAIVER_TEXTS[CURRENT_WAIVER_VERSION];
  return (
    <fieldset className="co-waiver">
      <legend>Immediate delivery (optional)</legend>
      <p className="co-hint">You have a 14-day right of withdrawal. To get digital content right away, tick both boxes; otherwise leave them empty.</p>
      <div className="co-check">
        <input type="checkbox" id={WAIVER_FIELDS.deliveryConsent} name={WAIVER_FIELDS.deliveryConsent} value="yes" />
        <label htmlFor={WAIVER_FIELDS.deliveryConsent}>{text.deliveryConsent}</label>
      </div>
      <div className="co-check">
        <input type="checkbox" id={WAIVER_FIELDS.acknowledgement} name={WAIVER_FIELDS.acknowledgement} value="yes" />
        <label htmlFor={WAIVER_FIELDS.acknowledgement}>{text.acknowledgement}</label>
      </div>
    </fieldset>
  );
}

/**
 * The payment form's element: a plain POST that works without client-side JavaScript, with the
 * form's script (its checks and brand marks) after it. `readAt` is when the page was read on the
 * store's clock: its month decides, for the script as for the server, which expiry has passed.
 * `billingAction`, where the page asks for billing details: where the script sends them as they change.
 */
export function PaymentForm({ action, readAt, billingAction, children }: { action: string; readAt: number; billingAction?: string; children: ReactNode }) {
  return (
    <>
      <form method="post" action={action} className="co-form" data-card-form="" data-today={new Date(readAt * 1000).toISOString().slice(0, 7)} data-billing-action={billingAction}>
        {children}
      </form>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own bundled script, allowed by its hash in the page's CSP */}
      <script dangerouslySetInnerHTML={{ __html: PAYMENT_FORM_SCRIPT }} />
    </>
  );
}

/**
 * The buyer's billing details, where the store taxes by their country: the country sets the VAT,
 * a VAT ID (with the company's name and address) may make it a reverse charge. Without the form's
 * script, `Update total` posts them for the page to come back with their amounts; with it, the
 * script sends them as they change and removes the button. The form carries the total it shows.
 */
export function BillingFields({ form, errors, vatIdUnconfirmed, shownTotal }: { form: BillingForm; errors: BillingErrors; vatIdUnconfirmed: boolean; shownTotal: number }) {
  const error = (field: BillingField) => {
    const code = errors[field];
    return code ? billingErrorMessage(field, code) : undefined;
  };
  const text = (field: Exclude<BillingField, 'country'>, autoComplete: string) => (
    <Field name={BILLING_FIELDS[field]} label={BILLING_LABELS[field]} error={error(field)}>
      {(props) => <input {...props} type="text" autoComplete={autoComplete} defaultValue={form[field]} />}
    </Field>
  );
  return (
    <fieldset className="co-billing" aria-describedby="billing-hint">
      <legend>Billing details</legend>
      <p id="billing-hint" className="co-hint">
        Your country decides the VAT. A VAT ID also needs the company name and address.
      </p>
      <input type="hidden" name={BILLING_FORM_FIELDS.shownTotal} defaultValue={shownTotal} />
      <Field name={BILLING_FIELDS.country} label={BILLING_LABELS.country} error={error('country')}>
        {(props) => (
          <select {...props} autoComplete="country" required defaultValue={form.country} data-missing={billingErrorMessage('country', 'country_required')}>
            <option value="">Select your country</option>
            {COUNTRY_OPTIONS.map((country) => (
              <option key={country.code} value={country.code}>
                {country.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {text('name', 'name')}
      {text('company', 'organization')}
      <Field name={BILLING_FIELDS.vatId} label={BILLING_LABELS.vatId} hint="Optional, for business purchases in the EU, e.g. DE123456789" error={error('vatId')}>
        {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} autoCapitalize="characters" maxLength={VAT_ID_MAX_LENGTH} defaultValue={form.vatId} />}
      </Field>
      <p className="co-note" data-vat-unconfirmed="" hidden={!vatIdUnconfirmed}>
        {VAT_ID_UNCONFIRMED_MESSAGE}
      </p>
      {text('line1', 'address-line1')}
      <div className="co-row">
        {text('postalCode', 'postal-code')}
        {text('city', 'address-level2')}
      </div>
      <button type="submit" name={BILLING_FORM_FIELDS.updateTotal} value="1" formNoValidate className="co-button co-button-secondary co-update-total" data-update-total="">
        Update total
      </button>
    </fieldset>
  );
}

const COUNTRY_OPTIONS = countryOptions();
