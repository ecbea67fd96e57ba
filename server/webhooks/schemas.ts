/**
 * The public contract of webhook endpoints and their delivery log: request schemas
 * with their field rules, response schemas as explicit allowlists.
 */
import { z } from 'zod';
import { WEBHOOK_DELIVERY_STATUSES } from '@/db/schema';
import { EVENT_TYPES } from './events';

export const endpointIdParam = z.string().min(1).describe('The webhook endpoint id, `we_…`.');

export const createEndpointInput = z.strictObject({
  url: z
    .string()
    .describe(
      'Where events are POSTed: an absolute http(s) URL, at most 2000 characters. Live mode: https to a public address only; test mode also accepts http, loopback and private addresses.',
    ),
  events: z
    .array(z.enum(EVENT_TYPES))
    .min(1)
    .optional()
    .describe('The event types this endpoint receives; every type when omitted.'),
});
export type CreateEndpointInput = z.infer<typeof createEndpointInput>;

export const retrieveEndpointInput = z.strictObject({ id: endpointIdParam });
export const deleteEndpointInput = z.strictObject({ id: endpointIdParam });

const pageFields = {
  limit: z.number().int().min(1).max(100).default(10).describe('Page size, 1–100; default 10.'),
  starting_after: z.string().min(1).optional().describe('The id of the last item of the previous page.'),
};

export const listEndpointsInput = z.strictObject(pageFields);
export type ListEndpointsQuery = z.infer<typeof listEndpointsInput>;

export const listDeliveriesInput = z.strictObject({ id: endpointIdParam, ...pageFields });
export type ListDeliveriesQuery = Omit<z.infer<typeof listDeliveriesInput>, 'id'>;

const endpointFields = {
  id: z.string(),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)).nullable().describe('The event types it receives; null means every type.'),
  livemode: z.boolean(),
  created: z.number().int(),
};

export const endpointSchema = z.object(endpointFields).meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof endpointSchema>;

export const createdEndpointSchema = z
  .object({
    ...endpointFields,
    secret: z
      .string()
      .describe('The signing secret `whsec_…`, shown only in this answer. Verify deliveries with any Standard Webhooks library.'),
  })
  .meta({ id: 'CreatedWebhookEndpoint' });
export type CreatedWebhookEndpoint = z.infer<typeof createdEndpointSchema>;

export const endpointListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(endpointSchema),
    has_more: z.boolean(),
    url: z.string(),
    livemode: z.boolean(),
  })
  .meta({ id: 'WebhookEndpointList' });
export type WebhookEndpointList = z.infer<typeof endpointListSchema>;

export const deletedEndpointSchema = z
  .object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) })
  .meta({ id: 'DeletedWebhookEndpoint' });
export type DeletedWebhookEndpoint = z.infer<typeof deletedEndpointSchema>;

export const deliveryAttemptSchema = z
  .object({
    attempt: z.number().int().describe('1 for the first attempt.'),
    attempted_at: z.number().int().describe('Wall-clock time the request was sent.'),
    response_status: z.number().int().nullable().describe('The receiver’s HTTP status; null when none arrived.'),
    error: z.string().nullable().describe('Why the attempt failed without a status (timeout, refused address, connection error).'),
    duration_ms: z.number().int(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

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
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof deliverySchema>;

export const deliveryListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(deliverySchema).describe('Newest event first.'),
    has_more: z.boolean(),
    url: z.string(),
    livemode: z.boolean(),
  })
  .meta({ id: 'WebhookDeliveryList' });
export type WebhookDeliveryList = z.infer<typeof deliveryListSchema>;
