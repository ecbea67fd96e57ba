import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, index, integer, json, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { oneOf, timestamptz } from './columns';
import { stores } from './stores';

/**
 * Webhook endpoints. The signing secret is not stored: it is derived from AUTH_SECRET, the
 * endpoint id and `secretGeneration` (server/webhooks/secrets.ts), so the database never holds it.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    url: text('url').notNull(),
    /** Event types this endpoint receives; null means every type. */
    events: json('events').$type<string[] | null>(),
    /** While true, what falls due for it stays pending without attempts. */
    disabled: boolean('disabled').notNull().default(false),
    /** Counts secret rolls; 0 is the secret the endpoint was created with. */
    secretGeneration: integer('secret_generation').notNull().default(0),
    /** Wall-clock time until which the previous generation's secret also signs; null when none. */
    previousSecretExpiresAt: timestamptz('previous_secret_expires_at'),
    createdAt: timestamptz('created_at').notNull(),
    deletedAt: timestamptz('deleted_at'),
  },
  (t) => [index('webhook_endpoints_store_idx').on(t.storeId, t.livemode)],
);

/**
 * The outbox and the event log: one row per event, written in the same transaction as the state
 * change that causes it (server/webhooks/events.ts). `payload` is the envelope exactly as
 * delivered. `sequence` is the order events were recorded in (across objects); `objectSequence`
 * counts the events of one object from 1 with no gap (the envelope's `sequence`).
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    sequence: bigserial('sequence', { mode: 'number' }).notNull(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    type: text('type').notNull(),
    objectId: text('object_id').notNull(),
    objectSequence: integer('object_sequence').notNull(),
    payload: json('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('webhook_events_object_sequence_unique').on(t.objectId, t.objectSequence),
    // The event list, read both ways (newest first, and forward from a cursor), and the same per
    // type. No index on `sequence` alone: the planner would walk every store's events with it.
    index('webhook_events_store_sequence_idx').on(t.storeId, t.livemode, t.sequence),
    index('webhook_events_store_type_idx').on(t.storeId, t.livemode, t.type, t.sequence),
  ],
);

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * One delivery per (event, endpoint), fanned out when the event is written, plus any resends
 * asked for by API (`resend`): replays that neither wait for nor hold back the object's other
 * events. It is the job: workers claim due rows with FOR UPDATE SKIP LOCKED. `objectId`/`sequence`
 * are copied from the event so that ordering per object per endpoint is one index lookup.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => webhookEvents.id, { onDelete: 'cascade' }),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    livemode: boolean('livemode').notNull(),
    objectId: text('object_id').notNull(),
    sequence: integer('sequence').notNull(),
    resend: boolean('resend').notNull().default(false),
    status: text('status').$type<WebhookDeliveryStatus>().notNull(),
    /** Attempts made so far (0 before the first). */
    attempts: integer('attempts').notNull().default(0),
    /** Wall-clock time of the next attempt while pending. */
    nextAttemptAt: timestamptz('next_attempt_at'),
    lastResponseStatus: integer('last_response_status'),
    lastError: text('last_error'),
    createdAt: timestamptz('created_at').notNull(),
    completedAt: timestamptz('completed_at'),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_endpoint_unique').on(t.eventId, t.endpointId).where(sql`not ${t.resend}`),
    index('webhook_deliveries_event_idx').on(t.eventId, t.endpointId),
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_order_idx').on(t.endpointId, t.objectId, t.sequence),
    // The delivery log: newest event first, a resend after the deliveries of its event before it.
    index('webhook_deliveries_log_idx').on(t.endpointId, t.sequence.desc(), t.createdAt.desc(), t.id.desc()),
    // What a test clock's advance moves.
    index('webhook_deliveries_store_pending_idx').on(t.storeId, t.livemode).where(sql`${t.status} = 'pending'`),
    check('webhook_deliveries_status_check', oneOf(t.status, WEBHOOK_DELIVERY_STATUSES)),
  ],
);

/** The delivery log: every attempt with its outcome (GET /api/v1/webhook_endpoints/{id}/deliveries). */
export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    responseStatus: integer('response_status'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    attemptedAt: timestamptz('attempted_at').notNull(),
  },
  (t) => [
    uniqueIndex('webhook_delivery_attempts_unique').on(t.deliveryId, t.attempt),
    // The dashboard's failures of the last 24 hours: recent failed attempts, then their delivery's store.
    index('webhook_delivery_attempts_failed_idx').on(t.attemptedAt, t.deliveryId).where(sql`${t.error} is not null`),
  ],
);
