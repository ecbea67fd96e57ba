/**
 * A business buyer's VAT ID: normalised as people type it (any case, spaces, dots, hyphens; `GR`
 * for Greece, whose VAT prefix is `EL`), then checked against its EU country's format and check
 * digits with jsvat. Only EU VAT IDs are taken: the invoice names the buyer's VAT registration in
 * the Union, and VIES knows no other.
 */
import {
  austria,
  belgium,
  bulgaria,
  checkVAT,
  croatia,
  cyprus,
  czechRepublic,
  denmark,
  estonia,
  finland,
  france,
  germany,
  greece,
  hungary,
  ireland,
  italy,
  latvia,
  lithuania,
  luxembourg,
  malta,
  netherlands,
  poland,
  portugal,
  romania,
  slovakiaRepublic,
  slovenia,
  spain,
  sweden,
  type Country,
} from 'jsvat';

/** The VAT prefix of each EU member state (Greece's is EL, not its ISO code GR). */
export const EU_VAT_COUNTRIES: Readonly<Record<string, Country>> = {
  AT: austria,
  BE: belgium,
  BG: bulgaria,
  HR: croatia,
  CY: cyprus,
  CZ: czechRepublic,
  DK: denmark,
  EE: estonia,
  FI: finland,
  FR: france,
  DE: germany,
  EL: greece,
  HU: hungary,
  IE: ireland,
  IT: italy,
  LV: latvia,
  LT: lithuania,
  LU: luxembourg,
  MT: malta,
  NL: netherlands,
  PL: poland,
  PT: portugal,
  RO: romania,
  SK: slovakiaRepublic,
  SI: slovenia,
  ES: spain,
  SE: sweden,
};

/** Longer than any EU VAT ID with room for typed separators; longer input is refused unread. */
export const VAT_ID_MAX_LENGTH = 40;

export type VatIdCheck =
  | { valid: true; vatId: string; countryCode: string; number: string }
  /** `country`: no EU country prefix; `format`: not that country's format or its check digits fail. */
  | { valid: false; reason: 'country' | 'format' };

/** Upper case without spaces, dots or hyphens, and Greece's `GR` read as `EL`. */
export function normalizeVatId(input: string): string {
  const compact = input.toUpperCase().replace(/[\s.-]+/g, '');
  return compact.startsWith('GR') ? `EL${compact.slice(2)}` : compact;
}

export function checkVatId(input: string): VatIdCheck {
  if (input.length > VAT_ID_MAX_LENGTH) return { valid: false, reason: 'format' };
  const vatId = normalizeVatId(input);
  const countryCode = vatId.slice(0, 2);
  const country = EU_VAT_COUNTRIES[countryCode];
  if (!country) return { valid: false, reason: 'country' };
  if (!checkVAT(vatId, [country]).isValid) return { valid: false, reason: 'format' };
  return { valid: true, vatId, countryCode, number: vatId.slice(2) };
}
