import type { DocumentLanguage } from '@/db/schema';
import type { ApiError } from '../../errors';

/**
 * What the hosted checkout and subscription pages say for each outcome of a submission, in the
 * page's language (the update-payment-method page is written in German too). The form handler puts
 * only the code in the page's URL (Post/Redirect/Get); the page looks the words up here, so a
 * crafted URL can never make the page show text of someone else's choosing.
 */
export type HostedField = 'email' | BillingFieldName | 'card_number' | 'expiry' | 'cvc';

/** The billing details' fields by their form names, in form order (server/vat/billing.ts checks them). */
export const BILLING_FIELD_NAMES = ['country', 'name', 'company', 'vat_id', 'address_line1', 'postal_code', 'city'] as const;
export type BillingFieldName = (typeof BILLING_FIELD_NAMES)[number];

export const HOSTED_ERROR_CODES = [
  'card_declined',
  'invalid_card_number',
  'unsupported_test_card',
  'invalid_expiry',
  'expired_card',
  'invalid_cvc',
  'email_invalid',
  'vat_id_invalid',
  'vat_id_country',
  'vat_id_unregistered',
  'trial_already_used',
  'session_expired',
  'session_payment_failed',
  'session_payment_in_progress',
  'too_many_attempts',
  'payment_outcome_unknown',
  'merchant_unavailable',
  'code_invalid',
  'discount_unavailable',
  'internal_error',
] as const;

export type HostedErrorCode = (typeof HOSTED_ERROR_CODES)[number];

export interface HostedMessage {
  message: string;
  /** The field the customer should correct, when there is one. */
  field?: HostedField;
}

const MESSAGES: Record<DocumentLanguage, Record<HostedErrorCode, HostedMessage>> = {
  en: {
    // A decline shows an alert containing the word "declined".
    card_declined: { message: 'Your card was declined. No payment was taken.' },
    invalid_card_number: { message: 'This card number is not valid. Check it and try again.', field: 'card_number' },
    unsupported_test_card: { message: 'This card number is not one of the test cards. Use a test card listed above.', field: 'card_number' },
    invalid_expiry: { message: 'Enter the expiry date as MM/YY.', field: 'expiry' },
    expired_card: { message: 'This card has expired. Use another card.', field: 'expiry' },
    invalid_cvc: { message: 'Enter the 3-digit security code from the back of the card.', field: 'cvc' },
    email_invalid: { message: 'Enter a valid email address for your receipt.', field: 'email' },
    vat_id_invalid: { message: 'This VAT ID is not valid for its country: check it, or leave the field empty to buy as a consumer.', field: 'vat_id' },
    vat_id_country: { message: 'Enter an EU VAT ID beginning with its country code, such as DE123456789, or leave the field empty.', field: 'vat_id' },
    vat_id_unregistered: { message: 'This VAT ID is not registered in the EU’s VIES register: check it, or leave the field empty.', field: 'vat_id' },
    trial_already_used: { message: 'You have already used the free trial for this plan. Nothing was charged.' },
    session_expired: { message: 'This checkout has expired.' },
    session_payment_failed: { message: 'A payment on this checkout was declined, so it cannot be retried.' },
    session_payment_in_progress: { message: 'A payment of this subscription is being processed right now. Nothing was charged: try again in a few minutes.' },
    too_many_attempts: { message: 'Too many payment attempts. Wait a moment and try again.' },
    payment_outcome_unknown: {
      message: 'We could not confirm whether your payment went through. Please do not pay again: check your email or contact the merchant.',
    },
    merchant_unavailable: { message: 'This merchant cannot accept payments at the moment. No payment was taken.' },
    code_invalid: { message: 'This code is not valid' },
    discount_unavailable: { message: 'This discount is no longer available. Nothing was charged.' },
    internal_error: { message: 'We could not complete the payment because of a problem on our side. Please try again in a moment.' },
  },
  de: {
    // A decline shows an alert containing the word "abgelehnt".
    card_declined: { message: 'Ihre Karte wurde abgelehnt. Es wurde nichts abgebucht.' },
    invalid_card_number: { message: 'Diese Kartennummer ist nicht gültig. Prüfen Sie sie und versuchen Sie es erneut.', field: 'card_number' },
    unsupported_test_card: { message: 'Diese Kartennummer ist keine der Testkarten. Verwenden Sie eine der oben genannten Testkarten.', field: 'card_number' },
    invalid_expiry: { message: 'Geben Sie das Ablaufdatum als MM/JJ ein.', field: 'expiry' },
    expired_card: { message: 'Diese Karte ist abgelaufen. Verwenden Sie eine andere Karte.', field: 'expiry' },
    invalid_cvc: { message: 'Geben Sie die 3-stellige Prüfnummer von der Rückseite der Karte ein.', field: 'cvc' },
    email_invalid: { message: 'Geben Sie eine gültige E-Mail-Adresse für Ihre Zahlungsbestätigung ein.', field: 'email' },
    vat_id_invalid: { message: 'Diese USt-IdNr. ist für ihr Land nicht gültig: Prüfen Sie sie, oder lassen Sie das Feld leer, um als Verbraucher zu kaufen.', field: 'vat_id' },
    vat_id_country: { message: 'Geben Sie eine EU-USt-IdNr. beginnend mit ihrem Ländercode ein, etwa DE123456789, oder lassen Sie das Feld leer.', field: 'vat_id' },
    vat_id_unregistered: { message: 'Diese USt-IdNr. ist im VIES-Register der EU nicht eingetragen: Prüfen Sie sie, oder lassen Sie das Feld leer.', field: 'vat_id' },
    trial_already_used: { message: 'Sie haben den kostenlosen Testzeitraum für diesen Tarif bereits genutzt. Es wurde nichts abgebucht.' },
    session_expired: { message: 'Dieser Bezahlvorgang ist abgelaufen.' },
    session_payment_failed: { message: 'Eine Zahlung in diesem Bezahlvorgang wurde abgelehnt, daher kann sie nicht wiederholt werden.' },
    session_payment_in_progress: { message: 'Eine Zahlung dieses Abonnements wird gerade verarbeitet. Es wurde nichts abgebucht: Versuchen Sie es in einigen Minuten erneut.' },
    too_many_attempts: { message: 'Zu viele Zahlungsversuche. Warten Sie einen Moment und versuchen Sie es erneut.' },
    payment_outcome_unknown: {
      message: 'Wir konnten nicht bestätigen, ob Ihre Zahlung durchgegangen ist. Bitte zahlen Sie nicht erneut: Prüfen Sie Ihre E-Mails oder wenden Sie sich an den Händler.',
    },
    merchant_unavailable: { message: 'Dieser Händler kann derzeit keine Zahlungen annehmen. Es wurde nichts abgebucht.' },
    code_invalid: { message: 'Dieser Code ist nicht gültig' },
    discount_unavailable: { message: 'Dieser Rabatt ist nicht mehr verfügbar. Es wurde nichts abgebucht.' },
    internal_error: { message: 'Wegen eines Problems auf unserer Seite konnten wir die Zahlung nicht abschließen. Bitte versuchen Sie es gleich noch einmal.' },
  },
};

/** How the alert above a form names each field to correct. */
const FIELD_LABELS: Record<DocumentLanguage, Record<HostedField, string>> = {
  en: {
    email: 'email address',
    country: 'country',
    name: 'name',
    company: 'company name',
    vat_id: 'VAT ID',
    address_line1: 'address',
    postal_code: 'postal code',
    city: 'city',
    card_number: 'card number',
    expiry: 'expiry date',
    cvc: 'security code (CVC)',
  },
  de: {
    email: 'E-Mail-Adresse',
    country: 'Land',
    name: 'Name',
    company: 'Firmenname',
    vat_id: 'USt-IdNr.',
    address_line1: 'Adresse',
    postal_code: 'Postleitzahl',
    city: 'Ort',
    card_number: 'Kartennummer',
    expiry: 'Ablaufdatum',
    cvc: 'Prüfnummer',
  },
};

/** `a`, `a and b`, `a, b and c`. */
const listed = (names: readonly string[], and: string) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} ${and} ${names[names.length - 1]}` : names[0]);

/** The alert above a form whose fields need correcting, naming them in form order (the page and its script: server/checkout/hosted/payment-form.browser.ts). */
export function correctionAlert(fields: readonly HostedField[], language: DocumentLanguage = 'en'): string {
  const named = fields.map((field) => FIELD_LABELS[language][field]);
  if (language === 'de')
    return `Bitte korrigieren Sie unten ${named.length > 1 ? 'die Felder' : 'das Feld'} ${listed(
      named.map((name) => `„${name}“`),
      'und',
    )}.`;
  return `Please correct the ${listed(named, 'and')} below.`;
}

export function hostedMessage(code: string | undefined, language: DocumentLanguage = 'en'): (HostedMessage & { code: HostedErrorCode }) | undefined {
  if (code === undefined || !(HOSTED_ERROR_CODES as readonly string[]).includes(code)) return undefined;
  return { code: code as HostedErrorCode, ...MESSAGES[language][code as HostedErrorCode] };
}

/** A decline for the reason of a field (`The payment was declined: this card has expired. …`). */
const DECLINED_BECAUSE: Record<DocumentLanguage, (message: string) => string> = {
  en: (message) => `The payment was declined: ${message.charAt(0).toLowerCase()}${message.slice(1)}`,
  de: (message) => `Die Zahlung wurde abgelehnt: ${message}`,
};

/** Why a failed session failed, in words; the word "declined" ("abgelehnt") stays in every decline. */
export function failureMessage(failureCode: string | null, language: DocumentLanguage = 'en'): string {
  if (failureCode === 'discount_invalid') return MESSAGES[language].discount_unavailable.message;
  if (failureCode && failureCode !== 'card_declined') {
    const known = hostedMessage(failureCode, language);
    if (known?.field) return DECLINED_BECAUSE[language](known.message);
  }
  return MESSAGES[language].card_declined.message;
}

/** The page's message code for a refused attempt. */
export function hostedPageErrorFor(error: ApiError): HostedErrorCode {
  if (error.code === 'parameter_invalid' && error.param === 'email') return 'email_invalid';
  if (error.code === 'account_suspended' || error.code === 'capability_disabled') return 'merchant_unavailable';
  // A typed code no longer usable was taken off; a discount the checkout was created with makes it unpayable.
  if (error.code === 'discount_invalid') return error.param === 'promotion_code' ? 'code_invalid' : 'discount_unavailable';
  return (HOSTED_ERROR_CODES as readonly string[]).includes(error.code) ? (error.code as HostedErrorCode) : 'internal_error';
}
