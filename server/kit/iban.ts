/**
 * IBANs (ISO 13616) that a SEPA credit transfer can reach: written without spaces in upper case,
 * of a country in the SEPA schemes' scope with that country's length in the SWIFT IBAN registry,
 * and whose check digits make the number mod 97 equal 1.
 */
import { ApiError } from '../errors';

/**
 * The SEPA schemes' countries and their IBAN lengths. Territories that bank under another
 * country's IBANs (the French overseas departments, Åland, the Channel Islands and the Isle of
 * Man, the Azores, Madeira and the Canaries) are covered by that country's code.
 */
export const SEPA_IBAN_LENGTHS: Readonly<Record<string, number>> = {
  // The European Union.
  AT: 20,
  BE: 16,
  BG: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  EE: 20,
  ES: 24,
  FI: 18,
  FR: 27,
  GR: 27,
  HR: 21,
  HU: 28,
  IE: 22,
  IT: 27,
  LT: 20,
  LU: 20,
  LV: 21,
  MT: 31,
  NL: 18,
  PL: 28,
  PT: 25,
  RO: 24,
  SE: 24,
  SI: 19,
  SK: 24,
  // The rest of the EEA, and the other countries and territories of the schemes.
  IS: 26,
  LI: 21,
  NO: 15,
  CH: 21,
  GB: 22,
  GI: 23,
  MC: 27,
  SM: 27,
  VA: 22,
  AD: 24,
  AL: 28,
  MD: 24,
  ME: 22,
  MK: 19,
  RS: 22,
};

/** As the IBAN is kept and sent: no spaces (as it is printed in groups of four), upper case. */
export function normalizeIban(raw: string): string {
  return raw.replace(/\s+/g, '').toUpperCase();
}

/** The number mod 97 once the first four characters move to the end and each letter becomes 10 … 35. */
function mod97(iban: string): number {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const character of rearranged) {
    const value = Number.parseInt(character, 36);
    remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  return remainder;
}

/** Why a normalised IBAN cannot be paid to, or undefined when it can. */
export function ibanProblem(iban: string): string | undefined {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) return 'must start with a country code and two check digits, followed by letters and digits only';
  const country = iban.slice(0, 2);
  const length = SEPA_IBAN_LENGTHS[country];
  if (length === undefined) return `must be of a country in the SEPA schemes, not ${country}`;
  if (iban.length !== length) return `of ${country} must have ${length} characters, not ${iban.length}`;
  if (mod97(iban) !== 1) return 'has check digits that do not match the rest: check it for a typing error';
  return undefined;
}

/** The IBAN normalised; a 400 `parameter_invalid` naming `iban` and what is wrong with it otherwise. */
export function checkedIban(raw: string): string {
  const iban = normalizeIban(raw);
  const problem = ibanProblem(iban);
  if (problem) throw new ApiError('parameter_invalid', `The IBAN ${problem}.`, { param: 'iban' });
  return iban;
}

/** The last four characters: all of an IBAN that is shown or logged after it is saved. */
export const ibanLast4 = (iban: string) => iban.slice(-4);
