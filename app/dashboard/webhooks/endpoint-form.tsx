import { EVENT_TYPES } from '@/server/webhooks/events';
import type { WebhookEndpoint } from '@/server/webhooks/schemas';

/** URL and event types of the create and the edit form: every type, or the ones ticked. */
export function EndpointFields({ endpoint }: { endpoint?: WebhookEndpoint }) {
  const chosen = new Set<string>(endpoint?.events ?? []);
  return (
    <>
      <label htmlFor="endpoint-url">URL</label>
      <input id="endpoint-url" name="url" type="url" required maxLength={2000} defaultValue={endpoint?.url} placeholder="https://example.com/webhooks" />
      <fieldset>
        <legend>Events</legend>
        <label className="dash-check">
          <input type="checkbox" name="all_events" value="yes" defaultChecked={!endpoint || endpoint.events === null} /> All event types
        </label>
        <p className="dash-muted">Or untick it and choose the types:</p>
        <div className="dash-checks">
          {EVENT_TYPES.map((type) => (
            <label key={type} className="dash-check">
              <input type="checkbox" name="events" value={type} defaultChecked={chosen.has(type)} /> <span className="dash-mono">{type}</span>
            </label>
          ))}
        </div>
      </fieldset>
    </>
  );
}

/** What each refusal code of the webhook and resend actions means to the person. */
export const WEBHOOK_MESSAGES: Record<string, string> = {
  form_expired: 'This form has expired: reload the page and try again.',
  invalid_url: 'Enter an absolute http(s) URL of at most 2000 characters. Live mode takes https to a public address only.',
  no_events: 'Tick “All event types” or at least one event type.',
  invalid_events: 'Choose event types from the list.',
  invalid_expires_in: 'Choose how long the old secret keeps signing from the list.',
  webhook_endpoint_limit_reached: 'This store has reached its webhook endpoint limit in this mode. Delete endpoints you no longer use.',
  webhook_endpoint_disabled: 'This endpoint is disabled: enable it before resending events to it.',
  idempotency_key_reused: 'This form was already used for another request. Reload the page and try again.',
  resource_missing: 'That endpoint or delivery no longer exists in this store and mode.',
  confirm_resend: 'This delivery already succeeded: tick “Resend although delivered” to send the event again.',
  confirm_resend_received: 'This endpoint already received this event: tick “Resend although delivered” to send it again.',
  no_endpoint: 'Choose the endpoint to send the event to.',
};

/** `Enabled` or `Disabled`. */
export const endpointState = (endpoint: WebhookEndpoint) => (endpoint.disabled ? 'Disabled' : 'Enabled');
