import { describe, expect, it } from 'vitest';
import { checkVatId, EU_VAT_COUNTRIES, normalizeVatId } from '@/server/vat/vat-id';

/**
 * VAT IDs of every EU member state: one valid number each (its check digits computed by the
 * country's rule), the same with one digit changed (its check fails), and how typing is forgiven.
 */
const VALID: Record<string, string> = {
  AT: 'ATU10223006',
  BE: 'BE0411905847',
  BG: 'BG101004508',
  HR: 'HR02574432339',
  CY: 'CY00376309R',
  CZ: 'CZ00216224',
  DK: 'DK10000009',
  EE: 'EE100007796',
  FI: 'FI09853608',
  FR: 'FR00300076965',
  DE: 'DE136695976',
  EL: 'EL094259216',
  HU: 'HU10672101',
  IE: 'IE6388047V',
  IT: 'IT00743110157',
  LV: 'LV40003009497',
  LT: 'LT100001410314',
  LU: 'LU10000356',
  MT: 'MT10126313',
  NL: 'NL004495445B01',
  PL: 'PL5210088067',
  PT: 'PT501442600',
  RO: 'RO11198699',
  SK: 'SK2020273893',
  SI: 'SI10830316',
  ES: 'ESA28015865',
  SE: 'SE556188840401',
};

/** The last digit of the number changed (before a Dutch `B01` branch suffix): the check no longer matches. */
function oneDigitOff(vatId: string): string {
  const checked = vatId.replace(/B\d\d$/, '');
  const index = [...checked].findLastIndex((char) => /\d/.test(char));
  const digit = Number(vatId[index]);
  return `${vatId.slice(0, index)}${(digit + 1) % 10}${vatId.slice(index + 1)}`;
}

describe('EU VAT IDs: format and check digits per country', () => {
  it('the table covers the 27 member states', () => {
    expect(Object.keys(EU_VAT_COUNTRIES).sort()).toEqual(Object.keys(VALID).sort());
    expect(Object.keys(VALID)).toHaveLength(27);
  });

  for (const [country, vatId] of Object.entries(VALID)) {
    it(`${country}: ${vatId} is valid; with a check digit off it is refused`, () => {
      expect(checkVatId(vatId)).toEqual({ valid: true, vatId, countryCode: country, number: vatId.slice(2) });
      expect(checkVatId(oneDigitOff(vatId))).toEqual({ valid: false, reason: 'format' });
    });
  }

  it("another country's format is refused: a German number under the Austrian or French prefix", () => {
    expect(checkVatId('AT136695976')).toEqual({ valid: false, reason: 'format' });
    expect(checkVatId('FR136695976')).toEqual({ valid: false, reason: 'format' });
    expect(checkVatId('DE1366959')).toEqual({ valid: false, reason: 'format' });
  });

  it('lower case, spaces, dots and hyphens are forgiven; Greece may be typed GR; the result is normalised', () => {
    expect(checkVatId(' de 136.695.976 ')).toMatchObject({ valid: true, vatId: 'DE136695976' });
    expect(checkVatId('nl-0044.95445-b01')).toMatchObject({ valid: true, vatId: 'NL004495445B01' });
    expect(checkVatId('GR094259216')).toMatchObject({ valid: true, vatId: 'EL094259216', countryCode: 'EL' });
    expect(normalizeVatId('atu 1022 3006')).toBe('ATU10223006');
  });

  it('without an EU country prefix it is refused as such: a bare number, a non-EU prefix, nonsense', () => {
    for (const input of ['136695976', 'GB123456789', 'CHE123456789', 'XX1234', '', 'DE']) {
      expect(checkVatId(input)).toEqual({ valid: false, reason: input === 'DE' ? 'format' : 'country' });
    }
    expect(checkVatId(`DE${'1'.repeat(60)}`)).toEqual({ valid: false, reason: 'format' });
  });
});
