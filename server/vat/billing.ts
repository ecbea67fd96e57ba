/**
 * The billing details a buyer gives on a hosted page where the store taxes by the buyer's
 * country: checked as the page refuses them (each field to correct with its code), then turned
 * into the details documents carry and the tax country and treatment they lead to.
 */
import type { CustomerDetails, TaxTreatment } from '@/db/schema';
import type { Config } from '../config';
import type { BillingFieldName } from '../kit/hosted-page/messages';
import { checkBuyerVatId } from './buyer';
import { countryOfVatPrefix, isCountryCode, vatAreaCountry } from '../kit/countries';
import { buyerTaxOf, operatorCountryOf, type BuyerTax } from './taxation';

/** The billing fields as posted; every one a trimmed string, '' when not given. */
export interface BillingForm {
  country: string;
  name: string;
  company: string;
  line1: string;
  postalCode: string;
  city: string;
  vatId: string;
}

/** The form field names, as the hosted pages post them. */
export const BILLING_FIELDS = {
  country: 'country',
  name: 'name',
  company: 'company',
  line1: 'address_line1',
  postalCode: 'postal_code',
  city: 'city',
  vatId: 'vat_id',
} as const satisfies Record<keyof BillingForm, BillingFieldName>;

export type BillingField = keyof BillingForm;

/** The longest each text field may be. */
export const BILLING_MAX_LENGTH: Record<Exclude<BillingField, 'country' | 'vatId'>, number> = { name: 200, company: 200, line1: 200, postalCode: 20, city: 100 };

export const BILLING_ERROR_CODES = ['country_required', 'field_required', 'field_too_long', 'vat_id_invalid', 'vat_id_country', 'vat_id_unregistered', 'vat_id_other_country'] as const;
export type BillingErrorCode = (typeof BILLING_ERROR_CODES)[number];

/** What the page says under a field refused with `code`. */
export function billingErrorMessage(field: BillingField, code: BillingErrorCode): string {
  switch (code) {
    case 'country_required':
      return 'Select your country.';
    case 'field_required':
      return `Enter the ${BILLING_LABELS[field].toLowerCase()}: a VAT ID needs the company's name and address on the invoice.`;
    case 'field_too_long':
      return `Use at most ${BILLING_MAX_LENGTH[field as keyof typeof BILLING_MAX_LENGTH]} characters.`;
    case 'vat_id_invalid':
      return 'This VAT ID is not valid for its country: check it, or leave the field empty to buy as a consumer.';
    case 'vat_id_country':
      return 'Enter an EU VAT ID beginning with its country code, such as DE123456789, or leave the field empty.';
    case 'vat_id_unregistered':
      return 'This VAT ID is not registered in the EU’s VIES register: check it, or leave the field empty.';
    case 'vat_id_other_country':
      return 'This VAT ID belongs to another country than the billing country.';
  }
}

/** The fields' labels, in form order. */
export const BILLING_LABELS: Record<BillingField, string> = {
  country: 'Country',
  name: 'Name',
  company: 'Company name',
  vatId: 'VAT ID',
  line1: 'Address',
  postalCode: 'Postal code',
  city: 'City',
};

/** Billing details that passed every check, with the taxation they lead to. */
export interface CheckedBilling {
  details: CustomerDetails;
  tax: BuyerTax;
  /** A VAT ID of another member state charged VAT because VIES could not confirm it (live mode). */
  vatIdUnconfirmed: boolean;
}

export type BillingCheck = { ok: true; billing: CheckedBilling } | { ok: false; errors: Partial<Record<BillingField, BillingErrorCode>> };

/** Reads the billing fields of a posted form (a missing field is ''). */
export function billingFormOf(form: FormData): BillingForm {
  const read = (name: string) => {
    const value = form.get(name);
    return typeof value === 'string' ? value.trim() : '';
  };
  return Object.fromEntries(Object.entries(BILLING_FIELDS).map(([key, name]) => [key, read(name)])) as unknown as BillingForm;
}

/**
 * Checks the fields as the page refuses them: a country always; a VAT ID makes company, address,
 * postal code and city required, must pass its country's checks (VIES when enabled) and be of
 * the billing country. Reverse charge needs, in live mode, VIES's confirmation; in test mode the
 * format and check digits suffice.
 */
export async function checkBilling(config: Pick<Config, 'vatLookup' | 'operator'>, livemode: boolean, form: BillingForm): Promise<BillingCheck> {
  const errors: Partial<Record<BillingField, BillingErrorCode>> = {};
  const country = form.country.toUpperCase();
  if (!isCountryCode(country)) errors.country = 'country_required';
  for (const field of Object.keys(BILLING_MAX_LENGTH) as (keyof typeof BILLING_MAX_LENGTH)[]) {
    if (form[field].length > BILLING_MAX_LENGTH[field]) errors[field] = 'field_too_long';
    else if (form.vatId !== '' && field !== 'name' && form[field] === '') errors[field] = 'field_required';
  }
  let vatId: string | null = null;
  let confirmed = false;
  if (form.vatId !== '') {
    const checked = await checkBuyerVatId(config, form.vatId);
    if (!checked.valid) errors.vatId = checked.error;
    else if (errors.country === undefined && vatAreaCountry(countryOfVatPrefix(checked.vatId.slice(0, 2))) !== vatAreaCountry(country)) errors.vatId = 'vat_id_other_country';
    else {
      vatId = checked.vatId;
      confirmed = checked.confirmed || !livemode;
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const text = (value: string) => (value === '' ? null : value);
  const details: CustomerDetails = {
    name: text(form.name),
    company: text(form.company),
    address: { line1: text(form.line1), postal_code: text(form.postalCode), city: text(form.city), country },
    vat_id: vatId,
  };
  const tax = buyerTaxOf({ billingCountry: country, vatId, vatIdConfirmed: confirmed, operatorCountry: operatorCountryOf(config.operator.vatId) });
  return { ok: true, billing: { details, tax, vatIdUnconfirmed: vatIdUnconfirmedOf(config.operator.vatId, details, tax.treatment) } };
}

/**
 * Whether details taxed with `treatment` carry a VAT ID of another member state that would have
 * been reverse charged, had VIES confirmed it (live mode): VAT is charged, and the page says so.
 */
export function vatIdUnconfirmedOf(operatorVatId: string, details: CustomerDetails | null, treatment: TaxTreatment | null): boolean {
  const country = details?.address?.country;
  if (!details?.vat_id || !country || treatment !== 'vat') return false;
  return buyerTaxOf({ billingCountry: country, vatId: details.vat_id, vatIdConfirmed: true, operatorCountry: operatorCountryOf(operatorVatId) }).treatment === 'reverse_charge';
}

/** The billing form as the details left it, to fill the page again. */
export function billingFormFrom(details: CustomerDetails | null): BillingForm {
  return {
    country: details?.address?.country ?? '',
    name: details?.name ?? '',
    company: details?.company ?? '',
    line1: details?.address?.line1 ?? '',
    postalCode: details?.address?.postal_code ?? '',
    city: details?.address?.city ?? '',
    vatId: details?.vat_id ?? '',
  };
}
