import type { ApiError } from '../../errors';

/**
 * What the hosted checkout and subscription pages say for each outcome of a submission. The form handler puts
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

const MESSAGES: Record<HostedErrorCode, HostedMessage> = {
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
};

/** How the alert above a form names each field to correct. */
const FIELD_LABELS: Record<HostedField, string> = {
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
};

/** The alert above a form whose fields need correcting, naming them in form order (the page and its script: server/checkout/hosted/payment-form.browser.ts). */
export function correctionAlert(fields: readonly HostedField[]): string {
  const named = fields.map((field) => FIELD_LABELS[field]);
  const list = named.length > 1 ? `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}` : named[0];
  return `Please correct the ${list} below.`;
}

export function hostedMessage(code: string | undefined): (HostedMessage & { code: HostedErrorCode }) | undefined {
  if (code === undefined || !(HOSTED_ERROR_CODES as readonly string[]).includes(code)) return undefined;
  return { code: code as HostedErrorCode, ...MESSAGES[code as HostedErrorCode] };
}

/** Why a failed session failed, in words; the word "declined" stays in every decline. */
export function failureMessage(failureCode: string | null): string {
  if (failureCode === 'discount_invalid') return MESSAGES.discount_unavailable.message;
  if (failureCode && failureCode !== 'card_declined') {
    const known = hostedMessage(failureCode);
    if (known?.field) return `The payment was declined: ${known.message.charAt(0).toLowerCase()}${known.message.slice(1)}`;
  }
  return 'Your card was declined. No payment was taken.';
}

/** The page's message code for a refused attempt. */
export function hostedPageErrorFor(error: ApiError): HostedErrorCode {
  if (error.code === 'parameter_invalid' && error.param === 'email') return 'email_invalid';
  if (error.code === 'account_suspended' || error.code === 'capability_disabled') return 'merchant_unavailable';
  // A typed code no longer usable was taken off; a discount the checkout was created with makes it unpayable.
  if (error.code === 'discount_invalid') return error.param === 'promotion_code' ? 'code_invalid' : 'discount_unavailable';
  return (HOSTED_ERROR_CODES as readonly string[]).includes(error.code) ? (error.code as HostedErrorCode) : 'internal_error';
}
