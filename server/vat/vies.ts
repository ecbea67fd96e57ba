/**
 * Looking a VAT ID up at VIES, the EU's register of VAT numbers, when the operator turns it on
 * (`VIES_ENABLED=true`). VIES is often down for a member state or slow: every answer but a clear
 * "not registered" reads as `unavailable`, and the caller goes on with the format check alone, so
 * an outage there never blocks a payment.
 */
import type { VatLookupConfig } from '../config';
import { errorField, log } from '../observability/log';

/** `invalid`: VIES answered that the number is not a registered VAT ID. */
export type VatLookupResult = 'valid' | 'invalid' | 'unavailable';

/** Where a VAT ID is looked up; VIES by default, another register in tests or by an operator. */
export interface VatLookup {
  lookup(vatId: { countryCode: string; number: string }): Promise<VatLookupResult>;
}

/** VIES's REST API: `GET <base>/ms/{country}/vat/{number}` answers `{ isValid, userError, … }`. */
export function viesLookup(config: VatLookupConfig): VatLookup {
  return {
    async lookup({ countryCode, number }) {
      const url = `${config.baseUrl}/ms/${encodeURIComponent(countryCode)}/vat/${encodeURIComponent(number)}`;
      try {
        const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(config.timeoutMs) });
        if (!response.ok) {
          log.warn({ status: response.status, country: countryCode }, 'VIES answered with an error status: VAT ID checked by format only');
          return 'unavailable';
        }
        const body = (await response.json()) as { isValid?: unknown; userError?: unknown };
        if (body.isValid === true) return 'valid';
        // Only a definite answer refuses: MS_UNAVAILABLE, TIMEOUT, SERVICE_UNAVAILABLE and the like are an outage.
        if (body.isValid === false && body.userError === 'INVALID') return 'invalid';
        log.warn({ userError: typeof body.userError === 'string' ? body.userError : undefined, country: countryCode }, 'VIES could not answer: VAT ID checked by format only');
        return 'unavailable';
      } catch (error) {
        log.warn({ err: errorField(error), country: countryCode }, 'VIES unreachable: VAT ID checked by format only');
        return 'unavailable';
      }
    },
  };
}

/** The lookup the configuration asks for: VIES when enabled, else none (format and check digits only). */
export function configuredVatLookup(config: VatLookupConfig): VatLookup | undefined {
  return config.enabled ? viesLookup(config) : undefined;
}
