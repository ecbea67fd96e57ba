import { and, asc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { simulatorCharges, subscriptionCharges, webhookEvents } from '@/db/schema';
import type { Database } from '@/db/client';
import type { TestApi } from '../support/server';

export const DAY = 24 * 60 * 60;

/** POST /test_helpers/advance_clock, which bills what fell due before it answers. */
export async function advanceClock(api: TestApi, key: string, seconds: number): Promise<number> {
  const response = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } });
  expect(response.status).toBe(200);
  return response.body.now;
}

/** GET /api/v1/subscriptions/{id}, which must answer 200. */
export async function retrieveSubscription(api: TestApi, key: string, id: string) {
  const response = await api.request('GET', `/api/v1/subscriptions/${id}`, { key });
  expect(response.status).toBe(200);
  return response.body;
}

/** The outbox events of one subscription, in the order they were written. */
export async function eventsOf(db: Database, subscriptionId: string) {
  const rows = await db.select().from(webhookEvents).where(eq(webhookEvents.objectId, subscriptionId)).orderBy(asc(webhookEvents.sequence));
  return rows.map((row) => row.payload as { id: string; type: string; created: number; livemode: boolean; data: { object: Record<string, any> } });
}

export async function chargesOf(db: Database, subscriptionId: string) {
  return db.select().from(subscriptionCharges).where(eq(subscriptionCharges.subscriptionId, subscriptionId)).orderBy(asc(subscriptionCharges.cycle), asc(subscriptionCharges.attempt));
}

/** What the simulator really charged on a recurring contract (the first charge excluded). */
export async function recurringLedger(db: Database, recurringId: string) {
  return db
    .select()
    .from(simulatorCharges)
    .where(and(eq(simulatorCharges.recurringId, recurringId), eq(simulatorCharges.kind, 'recurring')))
    .orderBy(asc(simulatorCharges.createdAt), asc(simulatorCharges.idempotencyKey));
}
