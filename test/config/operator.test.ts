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
});
