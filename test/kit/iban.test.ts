import { describe, expect, it } from 'vitest';
import { ApiError } from '@/server/errors';
import { checkedIban, ibanLast4, SEPA_IBAN_LENGTHS } from '@/server/kit/iban';

/** The IBAN check: normalised, a SEPA-scheme country at its registry length, mod-97 equal to 1. */

/** The SWIFT registry's example IBAN of each country named. */
const VALID = [
  'DE89370400440532013000',
  'GB82WEST12345698765432',
  'FR1420041010050500013M02606',
  'NL91ABNA0417164300',
  'AT611904300234573201',
  'BE68539007547034',
  'ES9121000418450200051332',
  'IT60X0542811101000000123456',
  'PL61109010140000071219812874',
  'MT84MALT011000012345MTLCAST001S',
  'IS140159260076545510730339',
  'NO9386011117947',
  'CH9300762011623852957',
  'LI21088100002324013AA',
  'MC5811222000010123456789030',
  'SM86U0322509800000000270100',
  'VA59001123000012345678',
  'AD1200012030200359100100',
  'GI75NWBK000000007099453',
];

/** The 400 a wrong IBAN answers: its code, its param and its message. */
function refusal(raw: string): { code: string; param: string | undefined; message: string } {
  try {
    checkedIban(raw);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, param: error.param, message: error.message };
    throw error;
  }
  throw new Error(`${raw} was accepted`);
}

describe('checkedIban', () => {
  it.each(VALID)('%s is accepted as it is', (iban) => {
    expect(checkedIban(iban)).toBe(iban);
    expect(SEPA_IBAN_LENGTHS[iban.slice(0, 2)]).toBe(iban.length);
  });

  it('spaces are removed and letters upper-cased, as an IBAN is printed and typed', () => {
    expect(checkedIban('de89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
    expect(checkedIban(' gb82 west 1234 5698 7654 32\t')).toBe('GB82WEST12345698765432');
    expect(checkedIban('fr14 2004 1010 0505 0001 3m02 606')).toBe('FR1420041010050500013M02606');
    expect(ibanLast4(checkedIban('NL91 ABNA 0417 1643 00'))).toBe('4300');
  });

  it('a country outside the SEPA schemes → parameter_invalid naming iban, even with a right checksum', () => {
    expect(refusal('BR1800360305000010009795493C1')).toEqual({ code: 'parameter_invalid', param: 'iban', message: 'The IBAN must be of a country in the SEPA schemes, not BR.' });
    expect(refusal('TR330006100519786457841326').message).toBe('The IBAN must be of a country in the SEPA schemes, not TR.');
  });

  it('the wrong length for its country → parameter_invalid naming the length', () => {
    expect(refusal('DE8937040044053201300')).toEqual({ code: 'parameter_invalid', param: 'iban', message: 'The IBAN of DE must have 22 characters, not 21.' });
    expect(refusal('NL91ABNA04171643000').message).toBe('The IBAN of NL must have 18 characters, not 19.');
  });

  it('mod-97 not 1 (a typing error) → parameter_invalid', () => {
    expect(refusal('DE88370400440532013000')).toEqual({ code: 'parameter_invalid', param: 'iban', message: 'The IBAN has check digits that do not match the rest: check it for a typing error.' });
    // Two digits swapped.
    expect(refusal('DE89370400440532031000').param).toBe('iban');
  });

  it('not shaped like an IBAN (empty, punctuation, no check digits) → parameter_invalid', () => {
    for (const raw of ['', '   ', 'DE89-3704-0044-0532-0130-00', 'DEXX370400440532013000', '89370400440532013000', 'DE89370400440532013000ä']) {
      expect(refusal(raw)).toEqual({
        code: 'parameter_invalid',
        param: 'iban',
        message: 'The IBAN must start with a country code and two check digits, followed by letters and digits only.',
      });
    }
  });
});
