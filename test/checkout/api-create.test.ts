import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkLink, clientSecretHash } from '@/server/checkout/links';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { rawRequest } from '../http/helpers';
import { createProduct, epoch, expectError, HOUR, parseSessionUrl, readOrder, readSessionRow, SESSIONS, T0 } from './api-support';

const api = useTestApi();
type Store = Awaited<ReturnType<typeof createStore>>;
let store: Store;
let key: string;
let product: any;

beforeAll(async () => {
  store = await createStore(api.services);
  key = store.keys.sk_test;
  product = await createProduct(api, key, { name: 'Ebook', amount: 1999 });
});
beforeEach(() => api.clock.set(T0));

const post = (body: unknown, withKey = key, headers: Record<string, string> = {}) => api.request('POST', SESSIONS, { key: withKey, body, headers });

describe('POST /api/v1/checkout/sessions: price mode (spec 2.7, 4.4)', () => {
  it('4.4 price_id alone gives an open, unpaid session with every field of spec 2.7, an order and a signed url', async () => {
    const response = await post({ price_id: product.price_id });
    expect(response.status).toBe(201);
    const body = response.body;
    expect(Object.keys(body)).toEqual([
      'id', 'object', 'url', 'client_secret', 'status', 'payment_status', 'livemode', 'currency', 'amount_subtotal', 'amount_tax',
      'amount_total', 'quantity', 'price_id', 'product_id', 'description', 'order_id', 'customer_email', 'success_url', 'cancel_url',
      'metadata', 'created', 'expires_at',
    ]);
    expect(body).toEqual({
      id: expect.stringMatching(/^cs_test_[0-9A-Za-z]{24}$/),
      object: 'checkout.session',
      url: expect.any(String),
      client_secret: expect.stringMatching(new RegExp(`^${body.id}_secret_[0-9A-Za-z]{24,}$`)),
      status: 'open',
      payment_status: 'unpaid',
      livemode: false,
      currency: 'eur',
      amount_subtotal: 1999,
      amount_tax: 0,
      amount_total: 1999,
      quantity: 1,
      price_id: product.price_id,
      product_id: product.id,
      description: null,
      order_id: expect.stringMatching(/^ord_test_[0-9A-Za-z]{24}$/),
      customer_email: null,
      success_url: null,
      cancel_url: null,
      metadata: {},
      created: epoch(T0),
      expires_at: epoch(T0) + 24 * HOUR,
    });
    const url = parseSessionUrl(body.url);
    expect(url.origin).toBe(new URL(api.services.config.publicBaseUrl).origin);
    expect(url.path).toBe(`/checkout/${body.id}`);
    expect(url.expires).toBe(String(body.expires_at));
    expect(checkLink('test-auth-secret', 'checkout', body.id, url.expires!, url.signature!, epoch(T0))).toBe('valid');

    const row = await readSessionRow(api, body.id);
    expect(row).toMatchObject({ mode: 'price', storeId: store.id, clientSecretHash: clientSecretHash(body.client_secret) });
    expect(JSON.stringify(row)).not.toContain(body.client_secret);
    const { order, lines } = await readOrder(api, body.order_id);
    expect(order).toMatchObject({ id: body.order_id, storeId: store.id, livemode: false, status: 'pending', customerEmail: null, amountSubtotal: 1999, amountTax: 0, amountTotal: 1999 });
    expect(lines).toEqual([
      expect.objectContaining({ position: 0, productId: product.id, priceId: product.price_id, description: 'Ebook', quantity: 1, unitAmount: 1999, amountSubtotal: 1999, amountTax: 0, amountTotal: 1999, taxRate: null, taxInclusive: false, hasLicense: false }),
    ]);
  });
});
