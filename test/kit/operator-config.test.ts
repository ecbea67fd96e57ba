import { describe, expect, it } from 'vitest';
import { loadConfig } from '@/server/config';
import { documentLanguage } from '@/server/kit/language';

describe('the operator, from OPERATOR_* configuration', () => {
  it('unset: demo values, marked "(demo)", and isDemo', () => {
    expect(loadConfig({}).operator).toEqual({
      legalName: 'Example Payments GmbH (demo)',
      address: 'Musterstraße 1, 10115 Berlin, Germany (demo)',
      vatId: 'DE123456789 (demo)',
      email: 'billing@payments.example',
      isDemo: true,
    });
  });

  it('all four set: exactly those, not a demo; one missing still counts as a demo', () => {
    const env = {
      OPERATOR_LEGAL_NAME: ' Paywise B.V. ',
      OPERATOR_ADDRESS: 'Keizersgracht 1, 1015 CJ Amsterdam, Netherlands',
      OPERATOR_VAT_ID: 'NL004495445B01',
      OPERATOR_EMAIL: 'billing@paywise.example',
    };
    expect(loadConfig(env).operator).toEqual({ legalName: 'Paywise B.V.', address: env.OPERATOR_ADDRESS, vatId: 'NL004495445B01', email: 'billing@paywise.example', isDemo: false });
    expect(loadConfig({ ...env, OPERATOR_EMAIL: '' }).operator).toMatchObject({ email: 'billing@payments.example', isDemo: true, legalName: 'Paywise B.V.' });
  });

  it('VIES is off unless VIES_ENABLED=true', () => {
    expect(loadConfig({}).vatLookup).toEqual({ enabled: false, baseUrl: 'https://ec.europa.eu/taxation_customs/vies/rest-api', timeoutMs: 5000 });
    expect(loadConfig({ VIES_ENABLED: 'true', VIES_TIMEOUT_MS: '800' }).vatLookup).toMatchObject({ enabled: true, timeoutMs: 800 });
  });
});

describe("the customer's document language, from the hosted page's Accept-Language", () => {
  it('German for any German variant ranked above English; English otherwise', () => {
    expect(documentLanguage('de-AT,de;q=0.9,en;q=0.8')).toBe('de');
    expect(documentLanguage('fr-FR,de;q=0.7,en;q=0.9')).toBe('en');
    expect(documentLanguage('fr-FR,de;q=0.7')).toBe('de');
    expect(documentLanguage('en-GB,de;q=0.9')).toBe('en');
    expect(documentLanguage('fr')).toBe('en');
    expect(documentLanguage(null)).toBe('en');
    expect(documentLanguage('de;q=0')).toBe('en');
  });
});
