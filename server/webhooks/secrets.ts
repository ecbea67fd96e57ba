/**
 * Endpoint signing secrets (`whsec_<base64>`, the HMAC key is the decoded part).
 * They are derived from AUTH_SECRET, the endpoint id and its secret generation instead of being
 * stored, so the database never holds them: reading it is not enough to forge a webhook. The
 * cost: rotating AUTH_SECRET rotates every endpoint's secret at once (docs/webhooks.md).
 */
import { createHmac } from 'node:crypto';
import { signingSecret } from '../kit/links';
import type { Config } from '../config';

/** Generation 0 is the secret the endpoint was created with; each roll_secret adds one. */
export function endpointSecret(config: Pick<Config, 'authSecret'>, endpointId: string, generation = 0): string {
  // Generation 0 keeps the derivation endpoints had before secrets could be rolled.
  const label = generation === 0 ? `webhook-endpoint:${endpointId}` : `webhook-endpoint:${endpointId}:${generation}`;
  const key = createHmac('sha256', signingSecret(config)).update(label).digest();
  return `whsec_${key.toString('base64')}`;
}

export interface EndpointSecretState {
  id: string;
  secretGeneration: number;
  previousSecretExpiresAt: Date | null;
}

/** The secrets a delivery sent at `now` is signed with: the current one, then the previous one while it lasts. */
export function signingSecrets(config: Pick<Config, 'authSecret'>, endpoint: EndpointSecretState, now: Date): string[] {
  const current = endpointSecret(config, endpoint.id, endpoint.secretGeneration);
  const previousLasts = endpoint.secretGeneration > 0 && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now;
  return previousLasts ? [current, endpointSecret(config, endpoint.id, endpoint.secretGeneration - 1)] : [current];
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` under the decoded secret. */
export function signPayload(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}
