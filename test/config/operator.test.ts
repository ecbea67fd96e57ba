import { describe, expect, it } from 'vitest';
import { DEMO_OPERATOR, loadConfig } from '@/server/config';

describe('config.operator: the merchant of record', () => {
  it('reads OPERATOR_LEGAL_NAME, OPERATOR_ADDRESS, OPERATOR_VAT_ID and OPERATOR_EMAIL (trimmed); all four set is not a demo', () => {
    const config = loadConfig({
      OPERATOR_LEGAL_NAME: ' Example Payments GmbH ',
      OPERATOR_ADDRESS: 'Hauptstraße 1, 10115 Berlin, Germany',
      OPERATOR_VAT_ID: 'DE123456789',
      OPERATOR_EMAIL: 'billing@payments.example',
    });
    expect(config.operator).toEqual({
      legalName: 'Example Payments GmbH',
      address: 'Hauptstraße 1, 10115 Berlin, Germany',
      vatId: 'DE123456789',
      email: 'billing@payments.example',
      isDemo: false,
    });
  });

  it('unset (or blank): demo values, marked isDemo; one missing is enough to mark the details a demo', () => {
    expect(loadConfig({}).operator).toEqual({ ...DEMO_OPERATOR, isDemo: true });
    expect(DEMO_OPERATOR.legalName).toMatch(/demo/i);
    const partial = loadConfig({ OPERATOR_LEGAL_NAME: 'Example Payments GmbH', OPERATOR_ADDRESS: '  ', OPERATOR_VAT_ID: 'DE123456789', OPERATOR_EMAIL: 'billing@payments.example' });
    expect(partial.operator).toEqual({ legalName: 'Example Payments GmbH', address: DEMO_OPERATOR.address, vatId: 'DE123456789', email: 'billing@payments.example', isDemo: true });
  });

  it('OPERATOR_IBAN and OPERATOR_BIC: the account payouts are sent from, normalised; unset, none; not an IBAN or a BIC, the service does not start', () => {
    expect(loadConfig({}).operator).toMatchObject({ iban: undefined, bic: undefined });
    expect(loadConfig({ OPERATOR_IBAN: ' de89 3704 0044 0532 0130 00 ', OPERATOR_BIC: 'cobadeffxxx' }).operator).toMatchObject({ iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', isDemo: true });
    expect(loadConfig({ OPERATOR_IBAN: 'FR1420041010050500013M02606', OPERATOR_BIC: 'BNPAFRPP' }).operator).toMatchObject({ iban: 'FR1420041010050500013M02606', bic: 'BNPAFRPP' });
    for (const [iban, problem] of [
      ['DE89370400440532013001', 'has check digits that do not match the rest: check it for a typing error'],
      ['DE8937040044', 'of DE must have 22 characters, not 12'],
      ['DE89-3704-0044-0532-0130-00', 'must start with a country code and two check digits, followed by letters and digits only'],
      ['US64SVBKUS6S3300958879', 'must be of a country in the SEPA schemes, not US'],
    ]) {
      expect(() => loadConfig({ OPERATOR_IBAN: iban })).toThrow(`OPERATOR_IBAN must be an IBAN (country, check digits, account number; spaces allowed): the IBAN ${problem}, got "${iban}"`);
    }
    for (const bic of ['COBADEFF1', 'COBA DE FF', 'CO1ADEFFXXXX']) {
      expect(() => loadConfig({ OPERATOR_BIC: bic })).toThrow(`OPERATOR_BIC must be a BIC of 8 or 11 letters and digits, got "${bic}"`);
    }
  });
});
