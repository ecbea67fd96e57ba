/**
 * Endpoint signing secrets (`whsec_<base64>`, the HMAC key is the decoded part).
 * They are derived from AUTH_SECRET and the endpoint id instead of being stored, so the
 * database never holds them: reading it is not enough to forge a webhook. The cost: rotating
 * AUTH_SECRET rotates every endpoint's secret at once (README, "Webhooks").
 */
import { createHmac } from 'node:crypto';
import { signingSecret } from '../kit/links';
import type { Config } from '../config';

export function endpointSecret(config: Pick<Config, 'authSecret'>, endpointId: string): string {
  const key = createHmac('sha256', signingSecret(config)).update(`webhook-endpoint:${endpointId}`).digest();
  return `whsec_${key.toString('base64')}`;
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` under the decoded secret. */
export function signPayload(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}
