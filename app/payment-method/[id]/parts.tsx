import type { DocumentLanguage } from '@/db/schema';
import type { OperatorConfig } from '@/server/config';
import { failureMessage, hostedMessage, type HostedField } from '@/server/kit/hosted-page/messages';
import { hostedPagePath } from '@/server/kit/links';
import type { Formatters } from '@/server/kit/locale';
import type { CardUpdateOutcome, PaymentMethodView } from '@/server/subscriptions/payment-method';
import { formattersIn } from '../../_declaration/parts';
import { CardFields, cardText, CheckoutShell, FormAlert, Notice, PaymentForm } from '../../checkout/parts';
import { PAYMENT_METHOD_TEXTS } from './texts';

export interface PaymentMethodScreenProps {
  view: PaymentMethodView;
  /** What became of the update the page's query names (after a post), if any. */
  outcome: CardUpdateOutcome | undefined;
  /** The code of the error the form came back with (`?error=`), looked up in the page's language. */
  error: string | undefined;
  /** The page's own signed link, verified: its form posts it along. */
  link: { expires: string; signature: string };
  operator: OperatorConfig;
  language: DocumentLanguage;
}

/**
 * The update-payment-method page in its language: the form for a new card, what became of the last
 * one given, or that the subscription ended.
 */
export function PaymentMethodScreen({ view, outcome, error: errorCode, link, operator, language }: PaymentMethodScreenProps) {
  const text = PAYMENT_METHOD_TEXTS[language];
  const format = formattersIn(language);
  const shell = { store: { name: view.storeName, links: view.storeLinks }, operator, subscriptionId: view.id, cardNote: text.cardNote, language };

  if (view.ended && !outcome?.adopted) {
    const refunded = outcome?.status === 'succeeded' && outcome.amount > 0;
    return (
      <CheckoutShell {...shell}>
        <Notice title={text.endedHeading} tone="info">
          <p>
            {text.ended(view.planName, view.storeName)}
            {refunded ? ` ${text.refunded(format.amount(outcome.amount))}` : ''}
          </p>
        </Notice>
      </CheckoutShell>
    );
  }
  if (outcome && outcome.status !== 'declined') {
    return (
      <CheckoutShell {...shell}>
        <UpdateOutcome view={view} outcome={outcome} language={language} format={format} />
      </CheckoutShell>
    );
  }

  const error = hostedMessage(errorCode, language);
  const fieldError = (name: HostedField) => (error?.field === name ? error.message : undefined);
  return (
    <CheckoutShell {...shell} testCards={view.livemode ? undefined : 'recurring'}>
      <div className="co-grid">
        <div className="co-intro">
          <h1 className="co-h1">
            <span className="co-h1-label">{view.storeName}</span>
            <span className="co-amount">{text.heading}</span>
          </h1>
          <section className="co-card co-summary" aria-labelledby="plan-heading">
            <h2 id="plan-heading" className="co-h2">
              {text.subscription}
            </h2>
            <FactList view={view} language={language} format={format} />
          </section>
        </div>
        <section className="co-card co-pay" aria-labelledby="pay-heading">
          <h2 id="pay-heading" className="co-h2">
            {text.newCard}
          </h2>
          {outcome?.status === 'declined' ? (
            <div role="alert" className="co-alert" id="form-error">
              <p>
                {failureMessage(outcome.failureCode, language)} {text.notChanged}
              </p>
            </div>
          ) : (
            <FormAlert error={error} language={language} />
          )}
          <PaymentForm action={hostedPagePath('payment_method', { id: view.id, ...link }, { lang: language }, '/update')} readAt={view.readAt}>
            <CardFields fieldError={fieldError} language={language} />
            <div className="co-mandate">
              <p>{view.owed === null ? text.checkOnly(view.planName) : text.payOwed(format.amount(view.owed), view.planName)}</p>
            </div>
            <button type="submit" className="co-button co-pay-button">
              {view.owed === null ? text.updateCard : text.updateCardAndPay(format.amount(view.owed))}
            </button>
          </PaymentForm>
        </section>
      </div>
    </CheckoutShell>
  );
}

interface InLanguage {
  language: DocumentLanguage;
  format: Formatters;
}

/** The plan, its next charge (date and amount, its discount off) and the card it is charged to. */
function FactList({ view, language, format }: { view: PaymentMethodView } & InLanguage) {
  const text = PAYMENT_METHOD_TEXTS[language];
  return (
    <dl className="co-totals">
      <div>
        <dt>{text.plan}</dt>
        <dd>{view.planName}</dd>
      </div>
      {view.nextCharge ? (
        <div>
          <dt>{text.nextCharge}</dt>
          <dd>
            {format.date(view.nextCharge.at)}, {format.amount(view.nextCharge.amount)}
          </dd>
        </div>
      ) : null}
      <div>
        <dt>{text.currentCard}</dt>
        <dd>{view.card ? cardText(view.card.brand, view.card.last4, language) : text.noCard}</dd>
      </div>
      {view.owed === null ? null : (
        <div className="co-total">
          <dt>{text.paymentDue}</dt>
          <dd>{format.amount(view.owed)}</dd>
        </div>
      )}
    </dl>
  );
}

/** An update approved, or still being checked (a gateway that did not answer, a challenge not finished). */
function UpdateOutcome({ view, outcome, language, format }: { view: PaymentMethodView; outcome: CardUpdateOutcome } & InLanguage) {
  const text = PAYMENT_METHOD_TEXTS[language];
  if (outcome.status !== 'succeeded') {
    return (
      <Notice title={text.checkingHeading} tone="info">
        <p>{text.checking}</p>
      </Notice>
    );
  }
  return (
    <Notice title={text.updatedHeading} tone="success">
      {outcome.amount > 0 ? <p>{text.charged(format.amount(outcome.amount))}</p> : null}
      <p>{text.usedFor(view.card ? cardText(view.card.brand, view.card.last4, language) : text.yourNewCard, view.planName, view.storeName)}</p>
      <FactList view={view} language={language} format={format} />
    </Notice>
  );
}
