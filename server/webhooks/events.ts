/**
 * The outbox: an event is written in the same transaction as the state change that causes it,
 * together with one pending delivery per endpoint of that store and environment that wants it.
 * Delivery happens later (server/webhooks/delivery.ts), so a rolled back change never sends an
 * event and a committed one is never lost. The same rows are the store's event log.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { isDeepStrictEqual } from 'node:util';
import type { Transaction } from '@/db/client';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '@/db/schema';
import { epochSeconds } from '../clock';
import { newId, randomBase62 } from '../ids';
import { ownedBy } from '../kit/scope';

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
  'refund.created',
  'refund.updated',
  'customer.created',
  'customer.deleted',
  'portal.session.created',
  'portal.session.revoked',
  ...SUBSCRIPTION_EVENT_TYPES,
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

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

/**
 * Writes the event and fans it out to the matching endpoints, inside the caller's transaction.
 * The caller holds the object's row lock (it changed the row in this transaction), so the
 * events of one object get their sequence numbers one at a time.
 */
export async function recordEvent(tx: Transaction, input: RecordEventInput): Promise<EventEnvelope> {
  const id = newId('evt', input.livemode);
  const [last] = await tx
    .select({ sequence: sql<number>`coalesce(max(${webhookEvents.objectSequence}), 0)::int` })
    .from(webhookEvents)
    .where(eq(webhookEvents.objectId, input.object.id));
  const objectSequence = (last?.sequence ?? 0) + 1;
  const envelope: EventEnvelope = {
    id,
    object: 'event',
    type: input.type,
    created: epochSeconds(input.now),
    livemode: input.livemode,
    sequence: objectSequence,
    data: input.previous ? { object: input.object, previous_attributes: previousAttributes(input.previous, input.object) } : { object: input.object },
  };
  const [event] = await tx
    .insert(webhookEvents)
    .values({
      id,
      storeId: input.storeId,
      livemode: input.livemode,
      type: input.type,
      objectId: input.object.id,
      objectSequence,
      payload: envelope as unknown as Record<string, unknown>,
      createdAt: input.now,
    })
    .returning({ sequence: webhookEvents.sequence });
  const endpoints = await tx
    .select({ id: webhookEndpoints.id, events: webhookEndpoints.events })
    .from(webhookEndpoints)
    .where(and(ownedBy(webhookEndpoints, input), isNull(webhookEndpoints.deletedAt)));
  const wanted = endpoints.filter((endpoint) => !endpoint.events || endpoint.events.includes(input.type));
  if (wanted.length > 0) {
    await tx.insert(webhookDeliveries).values(
      wanted.map((endpoint) => ({
        id: `whd_${randomBase62(24)}`,
        eventId: id,
        endpointId: endpoint.id,
        storeId: input.storeId,
        livemode: input.livemode,
        objectId: input.object.id,
        sequence: event!.sequence,
        status: 'pending' as const,
        nextAttemptAt: input.wallNow,
        createdAt: input.wallNow,
      })),
    );
  }
  return envelope;
}
