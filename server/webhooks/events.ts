/**
 * The outbox: an event is written in the same transaction as the state
 * change that causes it, together with one pending delivery per endpoint of that store and
 * environment that wants it. Delivery happens later (server/webhooks/delivery.ts), so a rolled
 * back change never sends an event and a committed one is never lost.
 */
import { and, isNull } from 'drizzle-orm';
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

export type EventType = (typeof SUBSCRIPTION_EVENT_TYPES)[number];

export interface EventEnvelope {
  id: string;
  object: 'event';
  type: EventType;
  created: number;
  livemode: boolean;
  data: { object: Record<string, unknown> & { id: string } };
}

export interface RecordEventInput {
  storeId: string;
  livemode: boolean;
  type: EventType;
  /** The API representation of the object (for subscriptions: exactly what GET returns). */
  object: Record<string, unknown> & { id: string };
  /** The store's clock (test clock in test mode): the event's `created`. */
  now: Date;
  /** Wall-clock time: when the first delivery attempt falls due. */
  wallNow: Date;
}

/** Writes the event and fans it out to the matching endpoints, inside the caller's transaction. */
export async function recordEvent(tx: Transaction, input: RecordEventInput): Promise<EventEnvelope> {
  const id = newId('evt', input.livemode);
  const envelope: EventEnvelope = {
    id,
    object: 'event',
    type: input.type,
    created: epochSeconds(input.now),
    livemode: input.livemode,
    data: { object: input.object },
  };
  const [event] = await tx
    .insert(webhookEvents)
    .values({ id, storeId: input.storeId, livemode: input.livemode, type: input.type, objectId: input.object.id, payload: envelope as unknown as Record<string, unknown>, createdAt: input.now })
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
