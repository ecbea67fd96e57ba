/**
 * The outbox: an event is written in the same transaction as the state change that causes it,
 * together with one pending delivery per endpoint of that store and environment that wants it.
 * Delivery happens later (server/webhooks/delivery.ts), so a rolled back change never sends an
 * event and a committed one is never lost. The same rows are the store's event log.
 */
import { and, eq, isNull, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { TypedQueryBuilder } from 'drizzle-orm/query-builders/query-builder';
import { isDeepStrictEqual } from 'node:util';
import { jsonRecordset } from '@/db/batch';
import type { Executor, Transaction } from '@/db/client';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '@/db/schema';
import { epochSeconds } from '../clock';
import { newId, randomBase62 } from '../ids';
import { insertSelected } from '../kit/idempotency';

export const SUBSCRIPTION_EVENT_TYPES = [
  'subscription.created',
  'subscription.updated',
  'subscription.payment_succeeded',
  'subscription.payment_failed',
  'subscription.past_due',
  'subscription.canceled',
  'subscription.expired',
  'subscription.trial_will_end',
] as const;

/** Every type of event a store records and an endpoint may subscribe to. */
export const EVENT_TYPES = [
  'product.created',
  'product.updated',
  'product.deleted',
  'checkout.session.completed',
  'checkout.session.payment_failed',
  'checkout.session.expired',
  'order.paid',
  'order.refunded',
  'order.withdrawal_requested',
  'refund.created',
  'refund.updated',
  'customer.created',
  'customer.deleted',
  'portal.session.created',
  'portal.session.revoked',
  ...SUBSCRIPTION_EVENT_TYPES,
  'invoice.issued',
  'credit_note.issued',
  'payout.created',
  'payout.updated',
  'payout.paid',
  'payout.failed',
  'dispute.created',
  'dispute.updated',
  'dispute.closed',
  'coupon.created',
  'coupon.deleted',
  'promotion_code.created',
  'promotion_code.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** A delivery id, `whd_<24 base62>`. */
export const newDeliveryId = () => `whd_${randomBase62(24)}`;

export type EventObject = Record<string, unknown> & { id: string };

export interface EventEnvelope {
  id: string;
  object: 'event';
  type: EventType;
  created: number;
  livemode: boolean;
  /** The events of one object counted from 1 with no gap. */
  sequence: number;
  data: { object: EventObject; previous_attributes?: Record<string, unknown> };
}

/** When a change happened: the store's clock (the event's `created`) and the real time (its first delivery). */
export interface EventTimes {
  now: Date;
  wallNow: Date;
}

export interface RecordEventInput {
  storeId: string;
  livemode: boolean;
  type: EventType;
  /** The object exactly as the API returns it after the change (for a deletion, its deleted form). */
  object: EventObject;
  /** For `*.updated`: the same representation before the change; its differing fields become `previous_attributes`. */
  previous?: EventObject;
  /** The store's clock (test clock in test mode): the event's `created`. */
  now: Date;
  /** Wall-clock time: when the first delivery attempt falls due. */
  wallNow: Date;
}

/** Each top-level field whose value changed, with its value before. */
export function previousAttributes(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(before)) {
    if (!isDeepStrictEqual(value, after[field])) changed[field] = value;
  }
  return changed;
}

/** The event as delivered; `sequence` counts the events of its object. */
function eventEnvelope(id: string, input: RecordEventInput, sequence: number): EventEnvelope {
  return {
    id,
    object: 'event',
    type: input.type,
    created: epochSeconds(input.now),
    livemode: input.livemode,
    sequence,
    data: input.previous ? { object: input.object, previous_attributes: previousAttributes(input.previous, input.object) } : { object: input.object },
  };
}

const placeholder = sql.placeholder;

/** What an event row is made of, as SQL over its statement's source (placeholders, or a batch's columns). */
interface EventSource {
  id: SQL | Placeholder;
  storeId: SQL | Placeholder;
  livemode: SQL | Placeholder;
  type: SQL | EventType;
  objectId: SQL | Placeholder;
  objectSequence: SQL | number;
  payload: SQL | Placeholder;
  createdAt: SQL | Placeholder;
  /** When its first delivery falls due. */
  wallNow: SQL | Placeholder;
  /** The event rows' source: written only when it yields rows (e.g. fromClaimed). */
  from: SQL;
  /** What the deliveries select from besides `new_event`: a join to the source the columns above read. */
  deliveriesFrom?: SQL;
}

/**
 * Events and their fan-out as CTEs of one statement (`new_event`, then `new_deliveries`): one
 * pending delivery per endpoint of the event's store and environment that wants its type. A
 * delivery's id derives from its event's and endpoint's.
 */
function eventCtes(executor: Executor, source: EventSource) {
  const newEvent = insertSelected(
    executor,
    'new_event',
    webhookEvents,
    {
      id: source.id,
      storeId: source.storeId,
      livemode: source.livemode,
      type: source.type,
      objectId: source.objectId,
      objectSequence: source.objectSequence,
      payload: source.payload,
      createdAt: source.createdAt,
    },
    sql`${source.from} returning id, sequence, object_sequence`,
  );
  const newDeliveries = insertSelected(
    executor,
    'new_deliveries',
    webhookDeliveries,
    {
      id: sql`'whd_' || left(encode(sha256(convert_to(new_event.id || ${webhookEndpoints.id}, 'UTF8')), 'hex'), 24)`,
      eventId: sql`new_event.id`,
      endpointId: sql`${webhookEndpoints.id}`,
      storeId: source.storeId,
      livemode: source.livemode,
      objectId: source.objectId,
      sequence: sql`new_event.sequence`,
      status: 'pending',
      nextAttemptAt: source.wallNow,
      createdAt: source.wallNow,
    },
    sql`from new_event ${source.deliveriesFrom ?? sql``} join ${webhookEndpoints} on ${and(
      eq(webhookEndpoints.storeId, source.storeId),
      eq(webhookEndpoints.livemode, source.livemode),
      isNull(webhookEndpoints.deletedAt),
      // No list of types means every type.
      sql`(${webhookEndpoints.events} is null or ${webhookEndpoints.events}::jsonb @> ${typeof source.type === 'string' ? sql`${JSON.stringify([source.type])}::jsonb` : sql`jsonb_build_array(${source.type})`})`,
    )}`,
  );
  return [newEvent, newDeliveries] as const;
}

/**
 * recordEvent for the first event of an object that one statement creates, as CTEs of that
 * statement: sequence 1 (the object is new), written only when `from` yields a row (e.g.
 * fromClaimed). The statement's placeholders: `storeId`, `livemode` and createdEventParams.
 */
export function createdEventCtes(executor: Executor, type: EventType, from: SQL) {
  return eventCtes(executor, {
    id: placeholder('eventId'),
    storeId: placeholder('storeId'),
    livemode: placeholder('livemode'),
    type,
    objectId: placeholder('eventObjectId'),
    objectSequence: 1,
    payload: placeholder('eventPayload'),
    createdAt: placeholder('eventCreatedAt'),
    wallNow: placeholder('eventWallNow'),
    from,
  });
}

/** The parameters of createdEventCtes's event: `input.object` is the new object as the API returns it. */
export function createdEventParams(input: RecordEventInput) {
  const id = newId('evt', input.livemode);
  return { eventId: id, eventObjectId: input.object.id, eventPayload: eventEnvelope(id, input, 1), eventCreatedAt: input.now, eventWallNow: input.wallNow };
}

/** Where the envelope's text holds its sequence, which recordEvent's statement fills in. */
const SEQUENCE_SLOT = '"sequence":0,';

/** The columns of BatchedEvent as its statement reads them. */
const BATCH_COLUMNS = {
  position: 'int',
  event_id: 'text',
  store_id: 'text',
  livemode: 'boolean',
  type: 'text',
  object_id: 'text',
  head: 'text',
  tail: 'text',
  created_at: 'timestamptz',
  wall_now: 'timestamptz',
} as const satisfies Record<keyof BatchedEvent, string>;

/** One event of a batch as its statement reads it: the envelope's text split around the sequence. */
interface BatchedEvent {
  position: number;
  event_id: string;
  store_id: string;
  livemode: boolean;
  type: EventType;
  object_id: string;
  head: string;
  tail: string;
  created_at: string;
  wall_now: string;
}

/**
 * Writes the events, in the given order, and fans them out to the matching endpoints, inside the
 * caller's transaction, in one statement (one JSON parameter, so one statement text for any
 * number): each object's next sequences are counted by the statement itself. The caller holds
 * each object's row lock (it changed the row in this transaction), so the events of one object
 * get their sequence numbers one transaction at a time.
 */
export async function recordEvents(tx: Transaction, inputs: readonly RecordEventInput[]): Promise<EventEnvelope[]> {
  if (inputs.length === 0) return [];
  const envelopes = inputs.map((input) => eventEnvelope(newId('evt', input.livemode), input, 0));
  const batch = envelopes.map((envelope, position): BatchedEvent => {
    const input = inputs[position]!;
    const text = JSON.stringify(envelope);
    const slot = text.indexOf(SEQUENCE_SLOT);
    return {
      position,
      event_id: envelope.id,
      store_id: input.storeId,
      livemode: input.livemode,
      type: input.type,
      object_id: input.object.id,
      head: text.slice(0, slot + SEQUENCE_SLOT.length - 2),
      tail: text.slice(slot + SEQUENCE_SLOT.length - 1),
      created_at: input.now.toISOString(),
      wall_now: input.wallNow.toISOString(),
    };
  });
  const numbered = tx.$with('numbered').as(
    // A CTE only needs its SQL; Drizzle's types want a query builder.
    sql`select batch.*, (select coalesce(max(${webhookEvents.objectSequence}), 0) from ${webhookEvents} where ${webhookEvents.objectId} = batch.object_id)
      + row_number() over (partition by batch.object_id order by batch.position) as object_sequence
      from ${jsonRecordset(placeholder('batch'), 'batch', BATCH_COLUMNS)}` as unknown as TypedQueryBuilder<undefined>,
  );
  const [newEvent, newDeliveries] = eventCtes(tx, {
    id: sql`numbered.event_id`,
    storeId: sql`numbered.store_id`,
    livemode: sql`numbered.livemode`,
    type: sql`numbered.type`,
    objectId: sql`numbered.object_id`,
    objectSequence: sql`numbered.object_sequence`,
    // The payload's text as delivered, with the counted sequence in its place.
    payload: sql`cast(numbered.head || numbered.object_sequence || numbered.tail as json)`,
    createdAt: sql`numbered.created_at`,
    wallNow: sql`numbered.wall_now`,
    // In the given order: the events' global sequence follows it.
    from: sql`from ${numbered} order by numbered.position`,
    deliveriesFrom: sql`join ${numbered} on numbered.event_id = new_event.id`,
  });
  const written = await tx
    .with(numbered, newEvent, newDeliveries)
    .select({ id: sql<string>`id`, objectSequence: sql<number>`object_sequence` })
    .from(sql`${newEvent}`)
    .prepare('record_events')
    .execute({ batch: JSON.stringify(batch) });
  const sequences = new Map(written.map((row) => [row.id, row.objectSequence]));
  for (const envelope of envelopes) envelope.sequence = sequences.get(envelope.id)!;
  return envelopes;
}

/** recordEvents for one event. */
export async function recordEvent(tx: Transaction, input: RecordEventInput): Promise<EventEnvelope> {
  const [envelope] = await recordEvents(tx, [input]);
  return envelope!;
}
