import { expect } from 'vitest';
import { submitHostedPayment } from '@/server/checkout/hosted/submit';
import { readHostedSubmission } from '@/server/kit/hosted-page/request';
import { payCheckoutSession } from '@/server/payments/service';
import { submitHostedSubscription } from '@/server/subscriptions/hosted';
import { createProduct } from '../support/api';
import type { TestApi } from '../support/server';

/** Test helpers of the customer e-mail suites: the causes of e-mails, made as a customer and a merchant make them. */

export const EMAILS = '/api/v1/test_helpers/emails';
export const PUBLIC_BASE_URL = 'https://pay.example.test';
export const DAY = 24 * 60 * 60;

export const CARDS = {
  approved: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  declinesRecurring: '4000 0000 0000 0341',
} as const;

/** A hosted form's POST as the browser sends it, read by the same function the route uses (Accept-Language included). */
function hostedPost(url: string, fields: Record<string, string>, acceptLanguage: string | undefined) {
  const form = new URLSearchParams(fields);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (acceptLanguage !== undefined) headers['accept-language'] = acceptLanguage;
  const page = new URL(url);
  return new Request(`${page.origin}${page.pathname}/pay${page.search}`, { method: 'POST', headers, body: form });
}

const cardFields = (number: string) => ({ card_number: number, expiry: '12/34', cvc: '123' });

export interface PaidOrder {
  sessionId: string;
  orderId: string;
  location: string;
}

/**
 * POST /checkout/sessions for `lines` (name, amount, quantity), then the hosted form paid with
 * `card` from a browser that sends `acceptLanguage`. Answers the order's id.
 */
export async function payOrder(
  api: TestApi,
  key: string,
  options: { email?: string; acceptLanguage?: string; card?: string; lines?: { name: string; amount: number; quantity?: number; tax_rate?: number }[] } = {},
): Promise<PaidOrder> {
  const lines = options.lines ?? [{ name: 'Field guide', amount: 1999 }];
  const lineItems = [];
  for (const line of lines) {
    const product = await createProduct(api, key, { name: line.name, amount: line.amount, ...(line.tax_rate === undefined ? {} : { tax_rate: line.tax_rate }) });
    lineItems.push({ price_id: product.price_id, quantity: line.quantity ?? 1 });
  }
  const created = await api.request('POST', '/api/v1/checkout/sessions', { key, body: { line_items: lineItems, customer_email: options.email ?? 'pat@example.com' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const submission = await readHostedSubmission(hostedPost(created.body.url, cardFields(options.card ?? CARDS.approved), options.acceptLanguage), created.body.id);
  const outcome = await submitHostedPayment(api.services, payCheckoutSession, submission);
  expect(outcome.kind).toBe('redirect');
  const session = await api.request('GET', `/api/v1/checkout/sessions/${created.body.id}`, { key });
  return { sessionId: created.body.id, orderId: session.body.order_id, location: outcome.kind === 'redirect' ? outcome.location : '' };
}

export const MONTHLY_PLAN = { amount: 990, interval: 'month', plan_name: 'Pro plan', total_payments: 12, customer_email: 'ada@example.com' } as const;

/** POST /subscriptions, then the hosted subscription form paid with `card` from a browser sending `acceptLanguage`; answers the subscription id. */
export async function subscribe(api: TestApi, key: string, options: { plan?: Record<string, unknown>; acceptLanguage?: string; card?: string } = {}): Promise<string> {
  const created = await api.request('POST', '/api/v1/subscriptions', { key, body: options.plan ?? MONTHLY_PLAN });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const submission = await readHostedSubmission(hostedPost(created.body.url, cardFields(options.card ?? CARDS.approved), options.acceptLanguage), created.body.id);
  await submitHostedSubscription(api.services, submission);
  const checkout = await api.request('GET', `/api/v1/subscriptions/checkout/${created.body.id}`, { key });
  expect(checkout.body.subscription).toMatch(/^sub_test_/);
  return checkout.body.subscription;
}

export async function advanceClock(api: TestApi, key: string, seconds: number): Promise<void> {
  const response = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

/** GET /test_helpers/emails with `query`, which must answer 200; its `data`. */
export async function listEmails(api: TestApi, key: string, query = ''): Promise<any[]> {
  const response = await api.request('GET', `${EMAILS}${query}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}
