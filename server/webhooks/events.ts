/**
 * The outbox: an event is written in the same transaction as the state change that causes it,
 * together with one pending delivery per endpoint of that store and environment that wants it.
 * Delivery happens later (server/webhooks/delivery.ts), so a rolled back change never sends an
 * event and a committed one is never lost. The same rows are the store's event log.
 */
import { and, eq, isNull, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { isDeepStrictEqual } from 'node:util';
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

/**
 * An event and its fan-out as CTEs of one statement (`new_event`, then `new_deliveries`): the
 * event with the object's `sequence` and `payload` (SQL over what `from` yields), and one pending
 * delivery per endpoint of the store and environment that wants `type`, written only when `from`
 * yields a row. Placeholders: `storeId`, `livemode`, `eventId`, `eventObjectId`,
 * `eventCreatedAt`, `eventWallNow`. A delivery's id derives from its event's and endpoint's.
 */
function eventCtes(executor: Executor, type: EventType, from: SQL, sequence: SQL | number, payload: SQL | Placeholder) {
  const newEvent = insertSelected(
    executor,
    'new_event',
    webhookEvents,
    {
      id: placeholder('eventId'),
      storeId: placeholder('storeId'),
      livemode: placeholder('livemode'),
      type,
      objectId: placeholder('eventObjectId'),
      objectSequence: sequence,
      payload,
      createdAt: placeholder('eventCreatedAt'),
    },
    sql`${from} returning id, sequence, object_sequence`,
  );
  const newDeliveries = insertSelected(
    executor,
    'new_deliveries',
    webhookDeliveries,
    {
      id: sql`'whd_' || left(encode(sha256(convert_to(new_event.id || ${webhookEndpoints.id}, 'UTF8')), 'hex'), 24)`,
      eventId: sql`new_event.id`,
      endpointId: sql`${webhookEndpoints.id}`,
      storeId: placeholder('storeId'),
      livemode: placeholder('livemode'),
      objectId: placeholder('eventObjectId'),
      sequence: sql`new_event.sequence`,
      status: 'pending',
      nextAttemptAt: placeholder('eventWallNow'),
      createdAt: placeholder('eventWallNow'),
    },
    sql`from new_event join ${webhookEndpoints} on ${and(
      eq(webhookEndpoints.storeId, placeholder('storeId')),
      eq(webhookEndpoints.livemode, placeholder('livemode')),
      isNull(webhookEndpoints.deletedAt),
      // No list of types means every type.
      sql`(${webhookEndpoints.events} is null or ${webhookEndpoints.events}::jsonb @> ${JSON.stringify([type])}::jsonb)`,
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
  return eventCtes(executor, type, from, 1, placeholder('eventPayload'));
}

/** The parameters of createdEventCtes's event: `input.object` is the new object as the API returns it. */
export function createdEventParams(input: RecordEventInput) {
  const id = newId('evt', input.livemode);
  return { eventId: id, eventObjectId: input.object.id, eventPayload: eventEnvelope(id, input, 1), eventCreatedAt: input.now, eventWallNow: input.wallNow };
}

/** Where the envelope's text holds its sequence, which recordEvent's statement fills in. */
const SEQUENCE_SLOT = '"sequence":0,';

/**
 * Writes the event and fans it out to the matching endpoints, inside the caller's transaction,
 * in one statement: the object's next sequence is counted by the statement itself. The caller
 * holds the object's row lock (it changed the row in this transaction), so the events of one
 * object get their sequence numbers one at a time.
 */
export async function recordEvent(tx: Transaction, input: RecordEventInput): Promise<EventEnvelope> {
  const id = newId('evt', input.livemode);
  const envelope = eventEnvelope(id, input, 0);
  const text = JSON.stringify(envelope);
  const slot = text.indexOf(SEQUENCE_SLOT);
  const next = tx.$with('next_sequence').as(
    tx
      .select({ objectSequence: sql<number>`coalesce(max(${webhookEvents.objectSequence}), 0) + 1`.as('object_sequence') })
      .from(webhookEvents)
      .where(eq(webhookEvents.objectId, placeholder('eventObjectId'))),
  );
  const [newEvent, newDeliveries] = eventCtes(
    tx,
    input.type,
    sql`from ${next}`,
    sql`next_sequence.object_sequence`,
    // The payload's text as delivered, with the counted sequence in its place.
    sql`cast(cast(${placeholder('payloadHead')} as text) || next_sequence.object_sequence || cast(${placeholder('payloadTail')} as text) as json)`,
  );
  const [written] = await tx
    .with(next, newEvent, newDeliveries)
    .select({ objectSequence: sql<number>`object_sequence` })
    .from(sql`${newEvent}`)
    .prepare(`record_${input.type}`)
    .execute({
      storeId: input.storeId,
      livemode: input.livemode,
      eventId: id,
      eventObjectId: input.object.id,
      eventCreatedAt: input.now,
      eventWallNow: input.wallNow,
      payloadHead: text.slice(0, slot + SEQUENCE_SLOT.length - 2),
      payloadTail: text.slice(slot + SEQUENCE_SLOT.length - 1),
    });
  envelope.sequence = written!.objectSequence;
  return envelope;
}
