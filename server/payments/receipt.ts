import { appendQuery, receiptSignature, receiptSignatureMatches, signingSecret } from '../checkout/links';
import type { Config } from '../config';

type LinkConfig = Pick<Config, 'authSecret' | 'publicBaseUrl'>;

/** `<PUBLIC_BASE_URL>/checkout/<id>/receipt?signature=…`: where a paid session without success_url lands. */
export function receiptUrl(config: LinkConfig, sessionId: string): string {
  return `${config.publicBaseUrl}/checkout/${encodeURIComponent(sessionId)}/receipt?signature=${receiptSignature(signingSecret(config), sessionId)}`;
}

/** For the receipt page and the 3-D Secure return: is this the signature we handed out? */
export function receiptSignatureValid(config: Pick<Config, 'authSecret'>, sessionId: string, signature: string | undefined): boolean {
  return receiptSignatureMatches(signingSecret(config), sessionId, signature);
}

/**
 * Where the acquirer sends the customer back after a 3-D Secure challenge. Signed like the
 * receipt: the return page reveals the receipt, so a bare session id must not be enough.
 */
export function threeDSecureReturnUrl(config: LinkConfig, sessionId: string): string {
  return `${config.publicBaseUrl}/checkout/${encodeURIComponent(sessionId)}/return?signature=${receiptSignature(signingSecret(config), sessionId)}`;
}

/** success_url with `session_id` added, its own query kept (spec 4.4); else the receipt page. */
export function paidRedirectUrl(config: LinkConfig, session: { id: string; successUrl: string | null }): string {
  if (!session.successUrl) return receiptUrl(config, session.id);
  return appendQuery(session.successUrl, { session_id: session.id });
}
