/**
 * The public contract of webhook endpoints and their delivery log: request schemas
 * with their field rules, response schemas as explicit allowlists.
 */
import { z } from 'zod';
import { WEBHOOK_DELIVERY_STATUSES } from '@/db/schema';
import { strict, strictBoolean } from '../kit/json-schema';
import { answeredAs, EXAMPLE } from '../kit/examples';
import { EVENT_TYPES, type EventType } from './events';

export const endpointIdParam = z
  .string()
  .min(1)
  .describe('The webhook endpoint id, `we_…`.')
  .meta({ examples: [EXAMPLE.webhookEndpointId] });

const urlField = z
  .string()
  .describe(
    'Where events are POSTed: an absolute http(s) URL, at most 2000 characters. A public address; live mode over https only. Test mode also accepts http, and loopback and private addresses when the operator allows them (`WEBHOOKS_ALLOW_PRIVATE`). Cloud metadata addresses are always refused.',
  );

const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/** Documented as the list of types; an unknown one is blamed on `events` itself, not on its position. */
const eventTypesField = z
  .array(z.string().meta({ enum: [...EVENT_TYPES] }))
  .min(1)
  .superRefine((types, ctx) => {
    const unknown = types.find((type) => !KNOWN_EVENT_TYPES.has(type));
    if (unknown !== undefined) ctx.addIssue({ code: 'custom', message: `unknown event type "${unknown}"` });
  })
  .transform((types) => types as EventType[]);

export const createEndpointInput = z
  .strictObject({
    url: urlField,
    events: eventTypesField.optional().describe('The event types this endpoint receives; every type when omitted.'),
  })
  .meta({ examples: [{ url: 'https://shop.example.com/webhooks', events: ['order.paid', 'order.refunded'] }] });
export type CreateEndpointInput = z.infer<typeof createEndpointInput>;

export const updateEndpointInput = z
  .strictObject({
    id: endpointIdParam,
    url: urlField.optional(),
    events: eventTypesField.nullable().optional().describe('The event types this endpoint receives; null for every type.'),
    disabled: strictBoolean().optional().describe('While true, nothing is sent to it: what falls due is kept pending, and delivered in order once it is enabled again.'),
  })
  .meta({ examples: [{ events: ['order.paid', 'order.refunded', 'refund.updated'] }] });
export type UpdateEndpointInput = Omit<z.infer<typeof updateEndpointInput>, 'id'>;

/** A week: how long a receiver may keep verifying with the secret a roll replaced. */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 60 * 60;

export const rollSecretInput = z
  .strictObject({
    id: endpointIdParam,
    expires_in: strict(z.number().int().min(0).max(MAX_SECRET_OVERLAP_SECONDS))
      .default(24 * 60 * 60)
      .describe(`For how many seconds (0–${MAX_SECRET_OVERLAP_SECONDS}, default 86400) deliveries are also signed with the secret being replaced; 0 ends it at once.`),
  })
  .meta({ examples: [{ expires_in: 3600 }] });

export const retrieveEndpointInput = z.strictObject({ id: endpointIdParam });
export const resendEventInput = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .describe('The event id, `evt_…`.')
      .meta({ examples: [EXAMPLE.eventId] }),
    endpoint_id: z.string().min(1).describe('The webhook endpoint to send it to, `we_…`, of this store and environment.'),
  })
  .meta({ examples: [{ endpoint_id: EXAMPLE.webhookEndpointId }] });
export const deleteEndpointInput = z.strictObject({ id: endpointIdParam });

const pageFields = {
  limit: z.number().int().min(1).max(100).default(10).describe('Page size, 1–100; default 10.'),
  starting_after: z.string().min(1).optional().describe('The id of the last item of the previous page.'),
};

export const listEndpointsInput = z.strictObject(pageFields);
export type ListEndpointsQuery = z.infer<typeof listEndpointsInput>;

export const listDeliveriesInput = z.strictObject({
  id: endpointIdParam,
  ...pageFields,
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional().describe('Only deliveries in this status.'),
  event_id: z
    .string()
    .regex(/^evt_(test|live)_[0-9A-Za-z]{1,64}$/, 'must be an event id, `evt_…`')
    .optional()
    .describe('Only the deliveries of this event (its original delivery and any resends).'),
});
export type ListDeliveriesQuery = Omit<z.infer<typeof listDeliveriesInput>, 'id'>;

const endpointFields = {
  id: z.string(),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)).nullable().describe('The event types it receives; null means every type.'),
  livemode: z.boolean(),
  disabled: z.boolean().describe('While true, deliveries wait, pending, without attempts.'),
  previous_secret_expires_at: z
    .number()
    .int()
    .nullable()
    .describe(
      'After a secret roll: until when (epoch seconds, on the store’s clock: its test clock in test mode) deliveries are also signed with the secret it replaced; null when the roll ended it at once, or before any roll.',
    ),
  created: z.number().int(),
};

const endpointExample = {
  id: EXAMPLE.webhookEndpointId,
  object: 'webhook_endpoint',
  url: 'https://shop.example.com/webhooks',
  events: ['order.paid', 'order.refunded'],
  livemode: false,
  disabled: false,
  previous_secret_expires_at: null,
  created: EXAMPLE.created + 9,
};

export const endpointSchema = z.object(endpointFields).meta({ id: 'WebhookEndpoint', examples: [endpointExample] });
export type WebhookEndpoint = z.infer<typeof endpointSchema>;

export const createdEndpointSchema = z
  .object({
    ...endpointFields,
    secret: z.string().describe('The signing secret `whsec_…`, shown only when the endpoint is created and when its secret is rolled. Verify deliveries with any Standard Webhooks library.'),
  })
  .meta({ id: 'CreatedWebhookEndpoint', examples: [{ ...endpointExample, secret: 'whsec_enBEvEe1/y4wcpxevVat9KVttF0HvUSfIbT8gE/6Tb0=' }] });
export type CreatedWebhookEndpoint = z.infer<typeof createdEndpointSchema>;

/** A roll's answer: the new secret, and until when the old one still signs. */
export const rolledEndpointSchema = answeredAs(createdEndpointSchema, {
  secret: 'whsec_8NTo327wwiWO7W3dAQS+JIraHGZjCD6sVW87GL6aG7M=',
  previous_secret_expires_at: EXAMPLE.created + 3_610,
});

export const endpointListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(endpointSchema),
    has_more: z.boolean(),
    url: z.string(),
    livemode: z.boolean(),
  })
  .meta({
    id: 'WebhookEndpointList',
    examples: [{ object: 'list', data: [endpointExample], has_more: false, url: '/api/v1/webhook_endpoints', livemode: false }],
  });
export type WebhookEndpointList = z.infer<typeof endpointListSchema>;

export const deletedEndpointSchema = z
  .object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) })
  .meta({ id: 'DeletedWebhookEndpoint', examples: [{ id: EXAMPLE.webhookEndpointId, object: 'webhook_endpoint', deleted: true }] });
export type DeletedWebhookEndpoint = z.infer<typeof deletedEndpointSchema>;

const DELIVERY_ERROR_EXAMPLE = 'DNS lookup failed: ENOTFOUND: getaddrinfo ENOTFOUND shop.example.com';

const deliveryAttemptExample = {
  attempt: 1,
  attempted_at: EXAMPLE.created + 10,
  response_status: null,
  error: DELIVERY_ERROR_EXAMPLE,
  duration_ms: 20,
};

export const deliveryAttemptSchema = z
  .object({
    attempt: z.number().int().describe('1 for the first attempt.'),
    attempted_at: z.number().int().describe('Wall-clock time the request was sent.'),
    response_status: z.number().int().nullable().describe('The receiver’s HTTP status; null when none arrived.'),
    error: z.string().nullable().describe('Why the attempt failed without a status (timeout, refused address, connection error).'),
    duration_ms: z.number().int(),
  })
  .meta({ id: 'WebhookDeliveryAttempt', examples: [deliveryAttemptExample] });

/** Its first attempt failed; the next is due 5 s later. */
const deliveryExample = {
  id: 'whd_qIKLMBiELRBbM0cacYTolND2',
  object: 'webhook_delivery',
  event_id: EXAMPLE.eventId,
  event_type: 'order.refunded',
  status: 'pending',
  attempts: 1,
  last_response_status: null,
  last_error: DELIVERY_ERROR_EXAMPLE,
  next_attempt_at: EXAMPLE.created + 15,
  created: EXAMPLE.created + 10,
  attempt_log: [deliveryAttemptExample],
};

export const deliverySchema = z
  .object({
    id: z.string(),
    object: z.literal('webhook_delivery'),
    event_id: z.string().describe('Also the `webhook-id` header of every attempt.'),
    event_type: z.enum(EVENT_TYPES),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).describe('`failed`: given up after the last retry, or the endpoint was deleted.'),
    attempts: z.number().int().describe('Attempts made so far.'),
    last_response_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: z.number().int().nullable().describe('Wall-clock time of the next attempt while pending.'),
    created: z.number().int(),
    attempt_log: z.array(deliveryAttemptSchema).describe('Every attempt, oldest first.'),
  })
  .meta({ id: 'WebhookDelivery', examples: [deliveryExample] });
export type WebhookDelivery = z.infer<typeof deliverySchema>;

/** A resend's answer: a delivery of its own, sent at once. */
export const resentDeliverySchema = answeredAs(deliverySchema, {
  id: 'whd_6wholI4WZl1cEmSSTMCFREnC',
  event_id: EXAMPLE.eventId,
  status: 'pending',
  last_error: null,
  next_attempt_at: EXAMPLE.created + 73,
  created: EXAMPLE.created + 13,
  attempt_log: [],
});

export const deliveryListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(deliverySchema).describe('Newest event first.'),
    has_more: z.boolean(),
    url: z.string(),
    livemode: z.boolean(),
  })
  .meta({
    id: 'WebhookDeliveryList',
    examples: [
      {
        object: 'list',
        data: [deliveryExample],
        has_more: false,
        url: `/api/v1/webhook_endpoints/${EXAMPLE.webhookEndpointId}/deliveries`,
        livemode: false,
      },
    ],
  });
export type WebhookDeliveryList = z.infer<typeof deliveryListSchema>;
