import { describe, expect, it } from 'vitest';
import { payCheckoutSession } from '@/server/payments/service';
import { attachLicense } from '@/server/products/operator-service';
import { uniqueSku } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { epoch, T0 } from './fixtures';

/**
 * The records a real payment leaves behind, end to end: a session created over HTTP, paid the way
 * the hosted page pays it (payCheckoutSession on the test gateway), then read and refunded over
 * HTTP. The other suites set up every state from fixtures; this one proves the two paths agree.
 */
const api = useTestApi();
const store = useTestStore(api);

async function paidSession(customerEmail: string) {
  const product = await api.request('POST', '/api/v1/products', { key: store.key, body: { name: 'Pro licence', amount: 4900, sku: uniqueSku() } });
  expect(product.status).toBe(201);
  await attachLicense({ db: api.services.db, clock: api.clock }, product.body.id);
  const session = await api.request('POST', '/api/v1/checkout/sessions', {
    key: store.key,
    body: { price_id: product.body.price_id, quantity: 2, customer_email: customerEmail },
  });
  expect(session.status).toBe(201);
  const paid = await payCheckoutSession(
    { db: api.services.db, clock: api.clock, gateways: api.services.gateways, config: api.services.config },
    { sessionId: session.body.id, card: { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' } },
  );
  expect(paid.status).toBe('paid');
  return { product: product.body, session: session.body };
}

describe('records after a real payment', () => {
  it('the paid order, its customer and license key read back; the key validates; a full refund refunds it', async () => {
    const { product, session } = await paidSession('Payer@Example.com');
    const order = await api.request('GET', `/api/v1/orders/${session.order_id}`, { key: store.key });
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({
      id: session.order_id,
      object: 'order',
      livemode: false,
      status: 'paid',
      currency: 'eur',
      amount_subtotal: 9800,
      amount_tax: 0,
      amount_total: 9800,
      amount_refunded: 0,
      customer_id: expect.stringMatching(/^cus_test_[0-9A-Za-z]{24}$/),
      lines: [expect.objectContaining({ product_id: product.id, price_id: product.price_id, quantity: 2, unit_amount: 4900, amount_total: 9800 })],
      refunds: [],
      license_keys: [expect.stringMatching(/^LK-[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{5}$/)],
      withdrawal_waiver: null,
      withdrawal: null,
      billing_reason: 'purchase',
      subscription_id: null,
      created: epoch(T0),
      paid_at: epoch(T0),
    });

    const customer = await api.request('GET', `/api/v1/customers/${order.body.customer_id}`, { key: store.key });
    expect(customer.status).toBe(200);
    expect(customer.body).toMatchObject({ id: order.body.customer_id, object: 'customer', livemode: false, email: 'payer@example.com' });

    const validation = await api.request('POST', '/api/v1/licenses/validate', { key: store.key, body: { key: order.body.license_keys[0] } });
    expect(validation.body).toMatchObject({ valid: true, status: 'active', product_id: product.id, order_id: session.order_id });

    const refund = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: session.order_id } });
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({ order_id: session.order_id, amount: 9800, status: 'succeeded' });
    const refunded = await api.request('GET', `/api/v1/orders/${session.order_id}`, { key: store.key });
    expect(refunded.body).toMatchObject({ status: 'refunded', amount_refunded: 9800, refunds: [refund.body] });
  });

  it('an order whose session is not paid yet cannot be refunded', async () => {
    const product = await api.request('POST', '/api/v1/products', { key: store.key, body: { name: 'Ebook', amount: 1500, sku: uniqueSku() } });
    const session = await api.request('POST', '/api/v1/checkout/sessions', { key: store.key, body: { price_id: product.body.price_id } });
    expect((await api.request('GET', `/api/v1/orders/${session.body.order_id}`, { key: store.key })).body).toMatchObject({ status: 'pending', customer_id: null });
    const refund = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: session.body.order_id } });
    expect(refund.status).toBe(400);
    expect(refund.body.error).toMatchObject({ code: 'parameter_invalid', param: 'order_id' });
  });
});
