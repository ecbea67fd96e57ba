/**
 * The VAT ID a business buyer typed on a hosted page: its country's format and check digits
 * always, and VIES when the operator turns it on. VIES refuses only with a definite "not
 * registered"; while it is unavailable the format check alone decides, so the payment goes on.
 */
import type { Config } from '../config';
import type { HostedErrorCode } from '../kit/hosted-page/messages';
import { checkVatId } from './vat-id';
import { configuredVatLookup } from './vies';

/** `confirmed`: VIES answered that the ID is registered (never without VIES, nor while it is unavailable). */
export type BuyerVatIdCheck = { valid: true; vatId: string; confirmed: boolean } | { valid: false; error: Extract<HostedErrorCode, `vat_id_${string}`> };

export async function checkBuyerVatId(config: Pick<Config, 'vatLookup'>, typed: string): Promise<BuyerVatIdCheck> {
  const checked = checkVatId(typed);
  if (!checked.valid) return { valid: false, error: checked.reason === 'country' ? 'vat_id_country' : 'vat_id_invalid' };
  const lookup = configuredVatLookup(config.vatLookup);
  const found = lookup ? await lookup.lookup(checked) : 'unavailable';
  if (found === 'invalid') return { valid: false, error: 'vat_id_unregistered' };
  return { valid: true, vatId: checked.vatId, confirmed: found === 'valid' };
}
