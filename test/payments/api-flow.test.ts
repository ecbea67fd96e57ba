import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { licenseKeys, orderLines, orders, products } from '@/db/schema';
import { payCheckoutSession } from '@/server/payments/service';
import { createStore, uniqueSku } from '../support/factories';
import { useTestApi } from '../support/server';
import { CARDS, expectPaymentError, validCard } from './support';

/** The payment flow on sessions made by the real API (POST /api/v1/checkout/sessions), as the hosted page sees them. */
const api = useTestApi();
const T0 = new Date('2026-06-01T10:00:00.000Z');
let key: string;
let licensed: { id: string; price_id: string };
let plain: { id: string; price_id: string };

async function product(hasLicense: boolean) {
  const response = await api.request('POST', '/api/v1/products', { key, body: { name: hasLicense ? 'App licence' : 'Ebook', amount: 1500, sku: uniqueSku() } });
  expect(response.status).toBe(201);
  // The operator's product:attach-license.
  if (hasLicense) await api.services.db.update(products).set({ hasLicense: true }).where(eq(products.id, response.body.id));
  return response.body;
}

async function createSession(body: Record<string, unknown>) {
  const response = await api.request('POST', '/api/v1/checkout/sessions', { key, body });
  expect(response.status).toBe(201);
  return response.body;
}

beforeAll(async () => {
  api.clock.set(T0);
  const store = await createStore(api.services);
  key = store.keys.sk_test;
  licensed = await product(true);
  plain = await product(false);
});

describe('paying a session created through the API', () => {
  it('line items: paid, the API shows complete/paid with url and client_secret null, one key for the licensed line', async () => {
    const session = await createSession({
      line_items: [{ price_id: licensed.price_id, quantity: 2 }, { price_id: plain.price_id }],
      customer_email: 'Mixed@Case.example',
      success_url: 'https://shop.example/ok?x=1',
    });
    expect(session.amount_total).toBe(4500);
    const result = await payCheckoutSession(api.services, { sessionId: session.id, card: validCard() });
    expect(result).toEqual({ status: 'paid', redirectUrl: `https://shop.example/ok?x=1&session_id=${session.id}` });

    const read = await api.request('GET', `/api/v1/checkout/sessions/${session.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: session.id, status: 'complete', payment_status: 'paid', url: null, client_secret: null, amount_total: 4500, order_id: session.order_id });

    const [order] = await api.services.db.select().from(orders).where(eq(orders.id, session.order_id));
    expect(order).toMatchObject({ status: 'paid', amountTotal: 4500, customerEmail: 'mixed@case.example', cardLast4: '4242', paidAt: T0 });
    const lines = await api.services.db.select().from(orderLines).where(eq(orderLines.orderId, session.order_id)).orderBy(orderLines.position);
    const keys = await api.services.db.select().from(licenseKeys).where(eq(licenseKeys.orderId, session.order_id));
    expect(keys.map((k) => [k.orderLineId, k.productId])).toEqual([[lines[0]!.id, licensed.id]]);
  });

  it('a session without customer_email takes the typed email; a decline fails it for good', async () => {
    const session = await createSession({ price_id: plain.price_id });
    await expectPaymentError(payCheckoutSession(api.services, { sessionId: session.id, card: validCard(CARDS.declined), email: 'x@example.com' }), 'card_declined', 402);
    const read = await api.request('GET', `/api/v1/checkout/sessions/${session.id}`, { key });
    expect(read.body).toMatchObject({ status: 'open', payment_status: 'failed' });
    await expectPaymentError(payCheckoutSession(api.services, { sessionId: session.id, card: validCard(), email: 'x@example.com' }), 'session_payment_failed', 409);
  });

  it('the store test clock moved past expires_at (POST /test_helpers/advance_clock): 400 session_expired', async () => {
    const session = await createSession({ price_id: plain.price_id, customer_email: 'late@example.com', expires_at: Math.floor(T0.getTime() / 1000) + 1800 });
    const advanced = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds: 1800 } });
    expect(advanced.status).toBe(200);
    await expectPaymentError(payCheckoutSession(api.services, { sessionId: session.id, card: validCard() }), 'session_expired', 400);
    const read = await api.request('GET', `/api/v1/checkout/sessions/${session.id}`, { key });
    expect(read.body).toMatchObject({ status: 'expired', payment_status: 'unpaid', url: null });
  });
});
