/**
 * Webhook endpoints and event resends by a signed-in person: the API's services (so its URL
 * rules, limits and guards apply), each change audited with the person in its transaction; and
 * the sealing of a new signing secret for its one-time display.
 */
import type { Services } from '../context';
import type { IdempotentRequest } from '../kit/idempotency';
import type { Scope } from '../kit/scope';
import { requestDeliveryRun } from '../webhooks/jobs';
import type { CreatedWebhookEndpoint, CreateEndpointInput, UpdateEndpointInput, WebhookDelivery, WebhookEndpoint } from '../webhooks/schemas';
import { createEndpoint, resendEvent, rollEndpointSecret, updateEndpoint } from '../webhooks/service';
import { auditedChange } from './audited';
import type { DashboardActor } from '../audit/service';
import { scopeClock } from './service';

/** Registers once per form key: a double submit answers the first endpoint (and its secret). */
export async function createEndpointAs(services: Services, scope: Scope, actor: DashboardActor, input: CreateEndpointInput, idempotencyKey: string): Promise<CreatedWebhookEndpoint> {
  const clock = await scopeClock(services, scope);
  const idempotency: IdempotentRequest = { key: idempotencyKey, body: input, replayed: false };
  return auditedChange(services, scope, actor, {
    action: 'webhook_endpoint.create',
    change: (db) => createEndpoint({ db, clock, config: services.config }, scope, input, idempotency),
    details: (endpoint) => ({ webhook_endpoint: endpoint.id, url: endpoint.url, events: endpoint.events }),
    idempotency,
  });
}

export async function updateEndpointAs(services: Services, scope: Scope, actor: DashboardActor, id: string, input: UpdateEndpointInput): Promise<WebhookEndpoint> {
  const endpoint = await auditedChange(services, scope, actor, {
    action: 'webhook_endpoint.update',
    change: (db) => updateEndpoint({ db, config: services.config }, scope, id, input),
    details: () => ({ webhook_endpoint: id, ...input }),
  });
  // The service wakes delivery before our transaction commits: once more now the backlog is visible.
  if (input.disabled === false) requestDeliveryRun();
  return endpoint;
}

/** The old secret keeps signing for `expiresIn` seconds of the store's clock, as the API's roll_secret. */
export async function rollSecretAs(services: Services, scope: Scope, actor: DashboardActor, id: string, expiresIn: number): Promise<CreatedWebhookEndpoint> {
  const clock = await scopeClock(services, scope);
  return auditedChange(services, scope, actor, {
    action: 'webhook_endpoint.roll_secret',
    change: (db) => rollEndpointSecret({ db, config: services.config }, scope, id, expiresIn, clock.now()),
    details: () => ({ webhook_endpoint: id, expires_in: expiresIn }),
  });
}

/** A new delivery of a past event to one endpoint, once per form key. */
export async function resendEventAs(services: Services, scope: Scope, actor: DashboardActor, eventId: string, endpointId: string, idempotencyKey: string): Promise<WebhookDelivery> {
  const clock = await scopeClock(services, scope);
  const idempotency: IdempotentRequest = { key: idempotencyKey, body: { endpoint_id: endpointId }, replayed: false };
  const delivery = await auditedChange(services, scope, actor, {
    action: 'event.resend',
    change: (db) => resendEvent({ db, clock, wallClock: services.clock }, scope, eventId, endpointId, idempotency),
    details: (resent) => ({ event: eventId, webhook_endpoint: endpointId, delivery: resent.id }),
    idempotency,
  });
  // The service wakes delivery inside our transaction, before the delivery is visible: again after the commit.
  requestDeliveryRun();
  return delivery;
}
