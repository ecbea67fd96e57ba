import type { ApiEvent } from './events.js';

/** Every type of event the service records and delivers. */
export type EventType =
  | 'product.created'
  | 'product.updated'
  | 'product.deleted'
  | 'checkout.session.completed'
  | 'checkout.session.payment_failed'
  | 'checkout.session.expired'
  | 'order.paid'
  | 'order.refunded'
  | 'order.withdrawal_requested'
  | 'refund.created'
  | 'refund.updated'
  | 'customer.created'
  | 'customer.deleted'
  | 'portal.session.created'
  | 'portal.session.revoked'
  | 'subscription.created'
  | 'subscription.updated'
  | 'subscription.payment_succeeded'
  | 'subscription.payment_failed'
  | 'subscription.past_due'
  | 'subscription.canceled'
  | 'subscription.expired'
  | 'subscription.trial_will_end'
  | 'invoice.issued'
  | 'credit_note.issued'
  | 'payout.created'
  | 'payout.updated'
  | 'payout.paid'
  | 'payout.failed'
  | 'dispute.created'
  | 'dispute.updated'
  | 'dispute.closed'
  | 'coupon.created'
  | 'coupon.deleted'
  | 'promotion_code.created'
  | 'promotion_code.updated';

/** The object an event of type `T` carries in `data.object`, as the API returned it at the change. */
export type EventObject<T extends EventType> = Extract<ApiEvent, { type: T }>['data']['object'];

/** The envelope of one event, as the events API lists it and a webhook carries it. */
export interface Event<T extends EventType = EventType> {
  id: string;
  object: 'event';
  type: T;
  /** Epoch seconds on the store's clock (its test clock in test mode). */
  created: number;
  livemode: boolean;
  /** The events of one object counted from 1 with no gap: a gap is a missing or late event, a repeat a duplicate. */
  sequence: number;
  data: {
    object: EventObject<T>;
    /** On `*.updated`: each top-level field that changed, with its value before. */
    previous_attributes?: Record<string, unknown>;
  };
}

/** Any event, narrowed by a check of `type`. */
export type WebhookEvent = { [T in EventType]: Event<T> }[EventType];

export type WebhookVerificationReason = 'payload_not_raw' | 'missing_header' | 'invalid_timestamp' | 'timestamp_outside_tolerance' | 'malformed_secret' | 'no_matching_signature';

export class WebhookVerificationError extends Error {
  readonly name: 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;
  /** With `missing_header`: the header that is missing or empty. */
  readonly header?: 'webhook-id' | 'webhook-timestamp' | 'webhook-signature';
  /** With `timestamp_outside_tolerance`: now − timestamp in seconds, positive for an old message. */
  readonly skewSeconds?: number;
  /** With `no_matching_signature`: true when the compact JSON form of the payload would match, i.e. the body was re-formatted after it arrived. */
  readonly bodyReformatted?: true;
}

export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, either way. Default 300. */
  toleranceSeconds?: number;
}

/**
 * Checks a webhook's Standard Webhooks signature and timestamp and returns its event.
 * @param payload the raw body exactly as received (a string or bytes), never a parsed object
 * @param headers the request's headers, names in any case
 * @param secret the endpoint's `whsec_…` secret (the prefix is optional), or several while a secret is rolled
 * @throws {WebhookVerificationError} when a check fails; `reason` says which
 */
export function verifyWebhook(
  payload: string | Uint8Array | ArrayBuffer,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string | readonly string[],
  options?: VerifyWebhookOptions,
): WebhookEvent;
