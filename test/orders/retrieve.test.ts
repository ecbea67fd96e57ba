import { describe, expect, it } from 'vitest';
import { expectError, expectIdenticalMissing, rawApiRequest } from '../products/support';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { epoch, insertOrder, T0 } from './fixtures';

const api = useTestApi();
const store = useTestStore(api);

const ORDERS = '/api/v1/orders';
const get = (id: string, withKey = store.key) => api.request('GET', `${ORDERS}/${id}`, { key: withKey });

async function createProduct(body: Record<string, unknown> = {}, withKey = store.key) {
  const response = await api.request('POST', '/api/v1/products', { key: withKey, body: { name: 'Ebook', amount: 1999, ...body } });
  expect(response.status).toBe(201);
  return response.body;
}

describe('GET /api/v1/orders/{id}', () => {
  it('a paid order answers its lines, amounts, status, customer, refunds and license keys, every field', async () => {
    const licensed = await createProduct({ name: 'App licence', amount: 5000, tax_rate: 19 });
    const plain = await createProduct({ name: 'Stickers', amount: 250 });
    const order = await insertOrder(api, store, {
      customerEmail: 'Buyer@Example.com',
      lines: [
        { productId: licensed.id, priceId: licensed.price_id, description: 'App licence', unitAmount: 5000, amountTax: 950, taxRate: 19, licenseKeys: 1 },
        { productId: plain.id, priceId: plain.price_id, description: 'Stickers', quantity: 3, unitAmount: 250 },
      ],
    });
    const response = await get(order.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: order.id,
      object: 'order',
      livemode: false,
      status: 'paid',
      currency: 'eur',
      discount: null,
      amount_discount: 0,
      amount_subtotal: 5750,
      amount_tax: 950,
      amount_total: 6700,
      amount_refunded: 0,
      customer_id: order.customer!.id,
      customer_email: 'buyer@example.com',
      lines: [
        {
          object: 'order_line',
          product_id: licensed.id,
          price_id: licensed.price_id,
          description: 'App licence',
          quantity: 1,
          unit_amount: 5000,
          amount_discount: 0,
          amount_subtotal: 5000,
          amount_tax: 950,
          amount_total: 5950,
          tax_rate: 19,
          tax_inclusive: false,
        },
        {
          object: 'order_line',
          product_id: plain.id,
          price_id: plain.price_id,
          description: 'Stickers',
          quantity: 3,
          unit_amount: 250,
          amount_discount: 0,
          amount_subtotal: 750,
          amount_tax: 0,
          amount_total: 750,
          tax_rate: null,
          tax_inclusive: false,
        },
      ],
      refunds: [],
      license_keys: order.licenseKeys,
      // Written straight to the tables, without the invoice a payment issues (test/invoices covers that).
      invoice_id: null,
      withdrawal_waiver: null,
      withdrawal: null,
      billing_reason: 'purchase',
      subscription_id: null,
      dispute_id: null,
      customer_details: null,
      tax_country: null,
      tax_treatment: null,
      tax_evidence: null,
      evidence_conflict: null,
      created: epoch(T0),
      paid_at: epoch(T0),
    });
    expect(response.body.license_keys).toEqual([expect.stringMatching(/^LK-[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{5}$/)]);
  });

  it('a pending order has no customer, no paid_at, no keys and no refunds', async () => {
    const order = await insertOrder(api, store, { status: 'pending', customerEmail: 'prefill@example.com', lines: [{ licenseKeys: 1 }] });
    const response = await get(order.id);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: order.id,
      status: 'pending',
      amount_total: 1999,
      amount_refunded: 0,
      customer_id: null,
      customer_email: 'prefill@example.com',
      refunds: [],
      license_keys: [],
      invoice_id: null,
      paid_at: null,
    });
  });

  it('license keys are listed in line order, and stay listed once revoked', async () => {
    const product = await createProduct();
    const order = await insertOrder(api, store, {
      lines: [{ productId: product.id, description: 'first', licenseKeys: 1 }, { description: 'no licence' }, { productId: product.id, description: 'third', licenseKeys: 1 }],
    });
    expect((await get(order.id)).body.license_keys).toEqual(order.licenseKeys);
    expect((await api.request('DELETE', `/api/v1/products/${product.id}?force=true`, { key: store.key })).status).toBe(200);
    const after = await get(order.id);
    expect(after.body.license_keys).toEqual(order.licenseKeys);
    // 4.1: deleting a product detaches it from past orders.
    expect(after.body.lines.map((line: { product_id: string | null }) => line.product_id)).toEqual([null, null, null]);
  });

  it('a live order is read with the live key and carries livemode true', async () => {
    const order = await insertOrder(api, store, { livemode: true });
    const response = await get(order.id, store.keys.sk_live);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: order.id, livemode: true, status: 'paid' });
    expect(order.id).toMatch(/^ord_live_[0-9A-Za-z]{24}$/);
  });

  it('unknown, another store’s and the other environment’s order → 404 resource_missing, byte-identical', async () => {
    const other = await createStore(api.services);
    const order = await insertOrder(api, store);
    const path = `${ORDERS}/${order.id}`;
    const foreign = await rawApiRequest(api, 'GET', path, other.keys.sk_test);
    const otherEnvironment = await rawApiRequest(api, 'GET', path, store.keys.sk_live);
    const unknown = await rawApiRequest(api, 'GET', `${ORDERS}/ord_test_000000000000000000000000`, store.key);
    expectIdenticalMissing([foreign, otherEnvironment, unknown], 'id');
  });

  it('without a key → 401 missing_api_key; with a publishable key → 401 wrong_key_type', async () => {
    const order = await insertOrder(api, store);
    expectError(await api.request('GET', `${ORDERS}/${order.id}`), 401, 'missing_api_key');
    expectError(await get(order.id, store.keys.pk_test), 401, 'wrong_key_type');
  });

  it('an unknown query parameter is refused', async () => {
    const order = await insertOrder(api, store);
    expectError(await api.request('GET', `${ORDERS}/${order.id}?expand=lines`, { key: store.key }), 400, 'parameter_invalid', 'expand');
  });

  it('card details and the gateway payment id never appear in the order', async () => {
    const order = await insertOrder(api, store);
    const raw = await rawApiRequest(api, 'GET', `${ORDERS}/${order.id}`, store.key);
    expect(raw.status).toBe(200);
    expect(raw.text).not.toContain(order.gatewayPaymentId!);
    expect(raw.text).not.toContain('4242');
  });
});
