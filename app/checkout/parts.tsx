import type { ReactNode } from 'react';
import type { HostedField, HostedMessage } from '@/server/kit/hosted-page/messages';

/** One format for every amount on the hosted pages: EUR in Irish English ("€1,234.50"). */
const EUR = new Intl.NumberFormat('en-IE', { style: 'currency', currency: 'EUR' });

export function formatEur(cents: number): string {
  return EUR.format(cents / 100);
}

/** Header with the merchant's name, the main landmark, and a footer saying who processes the payment. */
export function CheckoutShell({ storeName, livemode, recurring, children }: { storeName?: string; livemode?: boolean; recurring?: boolean; children: ReactNode }) {
  return (
    <>
      <a className="co-skip" href="#main">
        Skip to content
      </a>
      {livemode === false ? <TestModeBanner recurring={recurring} /> : null}
      <header className="co-header">
        <div className="co-header-inner">
          {storeName ? <MerchantName storeName={storeName} /> : <p className="co-merchant">Checkout</p>}
          <p className="co-secure">
            <LockIcon /> Secure checkout
          </p>
        </div>
      </header>
      <main id="main" className="co-main">
        {children}
      </main>
      <footer className="co-footer">
        <p>Payments are processed by the payments service as merchant of record. Card details are used for this payment only and never stored.</p>
      </footer>
    </>
  );
}

/** The merchant's initial as a mark, then its name: the header of every hosted page. */
export function MerchantName({ storeName }: { storeName: string }) {
  return (
    <p className="co-merchant">
      <span className="co-merchant-mark" aria-hidden="true">
        {storeName.trim().charAt(0).toUpperCase()}
      </span>
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
export function TestModeBanner({ recurring }: { recurring?: boolean }) {
  return (
    <aside className="co-test" aria-label="Test mode">
      <p>
        <strong>Test mode.</strong> No real money moves. Use card <code>4242 4242 4242 4242</code> to approve or{' '}
        <code>4000 0000 0000 0002</code> to decline, any future expiry (MM/YY) and any 3-digit CVC.
      </p>
      {recurring ? (
        <p>
          For later charges: <code>4000 0000 0000 0341</code> declines every renewal, <code>4000 0000 0000 3063</code> declines the first renewal only.
        </p>
      ) : null}
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
  amountSubtotal: number;
  amountTax: number;
  amountTotal: number;
  taxInclusive: boolean;
}

/** The order: its lines (name, quantity, unit price), then subtotal, tax and total. */
export function OrderSummary({ amounts, headingId, heading, totalLabel = 'Total due' }: { amounts: SummaryAmounts; headingId: string; heading: string; totalLabel?: string }) {
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
      <dl className="co-totals">
        <div>
          <dt>Subtotal</dt>
          <dd>{formatEur(amounts.amountSubtotal)}</dd>
        </div>
        <div>
          <dt>{amounts.taxInclusive ? 'Tax (included)' : 'Tax'}</dt>
          <dd>{formatEur(amounts.amountTax)}</dd>
        </div>
        <div className="co-total">
          <dt>{totalLabel}</dt>
          <dd>{formatEur(amounts.amountTotal)}</dd>
        </div>
      </dl>
    </section>
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

/** How the alert above a form names the field to correct. */
const FIELD_LABELS: Record<HostedField, string> = { email: 'email address', card_number: 'card number', expiry: 'expiry date', cvc: 'security code (CVC)' };

/** The alert above a payment form after a failed attempt: the field to correct, or what went wrong. */
export function FormAlert({ error }: { error: HostedMessage | undefined }) {
  if (!error) return null;
  return (
    <div role="alert" className="co-alert" id="form-error">
      <p>{error.field ? `Please correct the ${FIELD_LABELS[error.field]} below.` : error.message}</p>
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
  className: string;
}

/** A labelled input with its hint and, after a failed attempt, its error tied by aria-describedby. */
export function Field({ name, label, hint, error, children }: { name: HostedField; label: string; hint?: string; error?: string; children: (props: InputProps) => React.ReactNode }) {
  const hintId = hint ? `${name}-hint` : undefined;
  const errorId = error ? `${name}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={error ? 'co-field co-field-invalid' : 'co-field'}>
      <label htmlFor={name}>{label}</label>
      {hint ? (
        <span id={hintId} className="co-hint">
          {hint}
        </span>
      ) : null}
      {children({ id: name, name, className: 'co-input', 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {error ? (
        <p id={errorId} className="co-field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The card inputs of every hosted payment form (accessible labels `Card number`, `Expiry`, `CVC`, which browser tests find them by). */
export function CardFields({ fieldError }: { fieldError: (name: HostedField) => string | undefined }) {
  return (
    <>
      <Field name="card_number" label="Card number" error={fieldError('card_number')}>
        {(props) => <input {...props} type="text" autoComplete="cc-number" inputMode="numeric" placeholder="1234 1234 1234 1234" maxLength={23} spellCheck={false} required />}
      </Field>
      <div className="co-row">
        <Field name="expiry" label="Expiry" hint="MM/YY" error={fieldError('expiry')}>
          {/* No inputMode="numeric": a phone's number pad has no "/", and no script adds it. */}
          {(props) => <input {...props} type="text" autoComplete="cc-exp" placeholder="MM/YY" maxLength={7} required />}
        </Field>
        <Field name="cvc" label="CVC" hint="3 digits" error={fieldError('cvc')}>
          {(props) => <input {...props} type="text" autoComplete="cc-csc" inputMode="numeric" placeholder="123" maxLength={4} required />}
        </Field>
      </div>
    </>
  );
}
