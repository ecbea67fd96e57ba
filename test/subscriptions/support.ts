import { asc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { auditEvents, webhookEvents } from '@/db/schema';
import type { Database } from '@/db/client';
import { answerCardUpdate, answerCardUpdateReturn } from '@/server/billing/card-update-page';
import { submitHostedSubscription } from '@/server/subscriptions/hosted';
import { serveFetchHandler, type TestApi } from '../support/server';

/** Test helpers of the subscription suites: create a checkout through the API, pay it as the hosted form posts. */

export const SUBSCRIPTIONS = '/api/v1/subscriptions';
export const CARDS = {
  approved: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  declinesRecurring: '4000 0000 0000 0341',
  declinesFirstRecurring: '4000 0000 0000 3063',
} as const;

export const PLAN = { amount: 990, interval: 'month', plan_name: 'Pro plan', total_payments: 12, customer_email: 'ada@example.com' } as const;

export interface CreatedCheckout {
  id: string;
  url: string;
  link: { id: string; expires: string; signature: string };
  [field: string]: any;
}

/** POST /subscriptions, which must answer 201; with the hosted link's parts. */
export async function createCheckout(api: TestApi, key: string, body: Record<string, unknown> = PLAN): Promise<CreatedCheckout> {
  const response = await api.request('POST', SUBSCRIPTIONS, { key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  const url = new URL(response.body.url);
  return { ...response.body, link: { id: response.body.id, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! } };
}

export function cardForm(number: string = CARDS.approved, fields: Record<string, string> = {}): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries({ card_number: number, expiry: '12/34', cvc: '123', ...fields })) data.set(name, value);
  return data;
}

/** The hosted form's POST, as app/subscribe/[id]/pay/route.ts makes it; answers where the browser goes. */
export async function submitCard(api: TestApi, checkout: CreatedCheckout, number: string = CARDS.approved, fields: Record<string, string> = {}) {
  return submitHostedSubscription(api.services, { ...checkout.link, form: cardForm(number, fields) });
}

/** Pays a checkout with a card and answers the subscription as the API reads it. */
export async function subscribe(api: TestApi, key: string, number: string = CARDS.approved, body: Record<string, unknown> = PLAN) {
  const checkout = await createCheckout(api, key, body);
  await submitCard(api, checkout, number);
  const read = await api.request('GET', `${SUBSCRIPTIONS}/checkout/${checkout.id}`, { key });
  const subscription = await api.request('GET', `${SUBSCRIPTIONS}/${read.body.subscription}`, { key });
  expect(subscription.status).toBe(200);
  return { checkout, subscription: subscription.body };
}

/** The outbox events of one object, in the order they were written. */
export async function eventsOf(db: Database, objectId: string) {
  const rows = await db.select().from(webhookEvents).where(eq(webhookEvents.objectId, objectId)).orderBy(asc(webhookEvents.sequence));
  return rows.map((row) => row.payload as { id: string; type: string; created: number; livemode: boolean; data: { object: Record<string, any>; previous_attributes?: Record<string, any> } });
}

export async function auditOf(db: Database, storeId: string) {
  return db.select().from(auditEvents).where(eq(auditEvents.storeId, storeId)).orderBy(asc(auditEvents.id));
}

/** The update-payment-method page's post and its 3-D Secure return, served as Next routes them. */
export function serveCardUpdateRoutes(api: TestApi) {
  return serveFetchHandler(async (request) => {
    const [, section, id = '', below] = new URL(request.url).pathname.split('/');
    if (section === 'payment-method' && below === 'update' && request.method === 'POST') return answerCardUpdate(api.services, request, id);
    if (section === 'payment-method' && below === 'return' && request.method === 'GET') return answerCardUpdateReturn(api.services, request, id);
    return new Response('not found', { status: 404 });
  });
}
