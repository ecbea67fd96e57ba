/**
 * Countries as the hosted pages and documents name them: every ISO 3166-1 alpha-2 code, the EU
 * member states among them, and their names in a document's language (from the runtime's ICU
 * data, so no list of names is kept here).
 */
import type { DocumentLanguage } from '@/db/schema';

/** Every officially assigned ISO 3166-1 alpha-2 code. */
export const ISO_COUNTRY_CODES = [
  'AD', 'AE', 'AF', 'AG', 'AI', 'AL', 'AM', 'AO', 'AQ', 'AR', 'AS', 'AT', 'AU', 'AW', 'AX', 'AZ', 'BA', 'BB', 'BD', 'BE', 'BF', 'BG', 'BH', 'BI', 'BJ',
  'BL', 'BM', 'BN', 'BO', 'BQ', 'BR', 'BS', 'BT', 'BV', 'BW', 'BY', 'BZ', 'CA', 'CC', 'CD', 'CF', 'CG', 'CH', 'CI', 'CK', 'CL', 'CM', 'CN', 'CO', 'CR',
  'CU', 'CV', 'CW', 'CX', 'CY', 'CZ', 'DE', 'DJ', 'DK', 'DM', 'DO', 'DZ', 'EC', 'EE', 'EG', 'EH', 'ER', 'ES', 'ET', 'FI', 'FJ', 'FK', 'FM', 'FO', 'FR',
  'GA', 'GB', 'GD', 'GE', 'GF', 'GG', 'GH', 'GI', 'GL', 'GM', 'GN', 'GP', 'GQ', 'GR', 'GS', 'GT', 'GU', 'GW', 'GY', 'HK', 'HM', 'HN', 'HR', 'HT', 'HU',
  'ID', 'IE', 'IL', 'IM', 'IN', 'IO', 'IQ', 'IR', 'IS', 'IT', 'JE', 'JM', 'JO', 'JP', 'KE', 'KG', 'KH', 'KI', 'KM', 'KN', 'KP', 'KR', 'KW', 'KY', 'KZ',
  'LA', 'LB', 'LC', 'LI', 'LK', 'LR', 'LS', 'LT', 'LU', 'LV', 'LY', 'MA', 'MC', 'MD', 'ME', 'MF', 'MG', 'MH', 'MK', 'ML', 'MM', 'MN', 'MO', 'MP', 'MQ',
  'MR', 'MS', 'MT', 'MU', 'MV', 'MW', 'MX', 'MY', 'MZ', 'NA', 'NC', 'NE', 'NF', 'NG', 'NI', 'NL', 'NO', 'NP', 'NR', 'NU', 'NZ', 'OM', 'PA', 'PE', 'PF',
  'PG', 'PH', 'PK', 'PL', 'PM', 'PN', 'PR', 'PS', 'PT', 'PW', 'PY', 'QA', 'RE', 'RO', 'RS', 'RU', 'RW', 'SA', 'SB', 'SC', 'SD', 'SE', 'SG', 'SH', 'SI',
  'SJ', 'SK', 'SL', 'SM', 'SN', 'SO', 'SR', 'SS', 'ST', 'SV', 'SX', 'SY', 'SZ', 'TC', 'TD', 'TF', 'TG', 'TH', 'TJ', 'TK', 'TL', 'TM', 'TN', 'TO', 'TR',
  'TT', 'TV', 'TW', 'TZ', 'UA', 'UG', 'UM', 'US', 'UY', 'UZ', 'VA', 'VC', 'VE', 'VG', 'VI', 'VN', 'VU', 'WF', 'WS', 'YE', 'YT', 'ZA', 'ZM', 'ZW',
] as const;

const ISO_COUNTRIES: ReadonlySet<string> = new Set(ISO_COUNTRY_CODES);

/** The 27 member states by ISO code (Greece `GR`, whose VAT prefix is `EL`). */
export const EU_MEMBER_STATES = [
  'AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK',
] as const;

const MEMBER_STATES: ReadonlySet<string> = new Set(EU_MEMBER_STATES);

export function isCountryCode(code: string): boolean {
  return ISO_COUNTRIES.has(code);
}

export function isMemberState(code: string): boolean {
  return MEMBER_STATES.has(code);
}

/**
 * The country whose VAT applies to a buyer of `country`: Monaco is taxed as France (it is in the
 * French VAT area), every other country as itself.
 */
export function vatAreaCountry(country: string): string {
  return country === 'MC' ? 'FR' : country;
}

/** A VAT ID's prefix as an ISO code: Greece's `EL` is `GR`. */
export function countryOfVatPrefix(prefix: string): string {
  return prefix === 'EL' ? 'GR' : prefix;
}

const namesByLanguage = new Map<string, Intl.DisplayNames>();

/** `DE` → `Germany` (`Deutschland` in German). */
export function countryName(code: string, language: DocumentLanguage = 'en'): string {
  let names = namesByLanguage.get(language);
  if (!names) {
    names = new Intl.DisplayNames([language], { type: 'region' });
    namesByLanguage.set(language, names);
  }
  return names.of(code) ?? code;
}

/** Every country for a select, sorted by English name. */
export function countryOptions(): { code: string; name: string }[] {
  return ISO_COUNTRY_CODES.map((code) => ({ code, name: countryName(code) })).sort((a, b) => a.name.localeCompare(b.name, 'en'));
}
