import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { products } from '@/db/schema';
import { payCheckoutSession } from '@/server/payments/service';
import { validCard } from '../payments/support';
import { expectError } from '../products/support';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { epoch, insertOrder, T0 } from '../orders/fixtures';

const api = useTestApi();
const store = useTestStore(api);

const VALIDATE = '/api/v1/licenses/validate';
const validate = (body: unknown, withKey = store.key) => api.request('POST', VALIDATE, { key: withKey, body });

async function licensedOrder(options: { livemode?: boolean } = {}) {
  const withKey = options.livemode ? store.keys.sk_live : store.key;
  const created = await api.request('POST', '/api/v1/products', { key: withKey, body: { name: 'App', amount: 4900 } });
  expect(created.status).toBe(201);
  const order = await insertOrder(api, store, { livemode: options.livemode, lines: [{ productId: created.body.id, licenseKeys: 1 }] });
  return { product: created.body, order, licenseKey: order.licenseKeys[0]! };
}

const notFound = (licenseKey: string, livemode = false) => ({
  object: 'license_key_validation',
  livemode,
  valid: false,
  key: licenseKey,
  status: 'not_found',
  product_id: null,
  order_id: null,
  created: null,
  revoked_at: null,
});

describe('POST /api/v1/licenses/validate', () => {
  it('an issued key of this store and mode → 200 valid true, every field', async () => {
    const { product, order, licenseKey } = await licensedOrder();
    const response = await validate({ key: licenseKey });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'license_key_validation',
      livemode: false,
      valid: true,
      key: licenseKey,
      status: 'active',
      product_id: product.id,
      order_id: order.id,
      created: epoch(T0),
      revoked_at: null,
    });
  });

  it('case and surrounding spaces are ignored: the key as typed by a customer validates', async () => {
    const { licenseKey } = await licensedOrder();
    const response = await validate({ key: `  ${licenseKey.toLowerCase()}\n` });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ valid: true, key: licenseKey, status: 'active' });
  });

  it('an unknown key → 200 valid false, never 404', async () => {
    const response = await validate({ key: 'LK-AAAAA-BBBBB-CCCCC-DDDDD' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(notFound('LK-AAAAA-BBBBB-CCCCC-DDDDD'));
  });

  it('another store’s key and the other environment’s key answer exactly like an unknown key', async () => {
    const other = await createStore(api.services);
    const { licenseKey } = await licensedOrder();
    const live = await licensedOrder({ livemode: true });
    expect((await validate({ key: licenseKey }, other.keys.sk_test)).body).toEqual(notFound(licenseKey));
    expect((await validate({ key: licenseKey }, store.keys.sk_live)).body).toEqual(notFound(licenseKey, true));
    expect((await validate({ key: live.licenseKey }, store.key)).body).toEqual(notFound(live.licenseKey));
    // The live key validates with the live secret key.
    expect((await validate({ key: live.licenseKey }, store.keys.sk_live)).body).toMatchObject({ valid: true, livemode: true });
  });

  it('force-deleting the product revokes its keys: the next validation is valid false, status revoked', async () => {
    const { order, licenseKey } = await licensedOrder();
    const product = (await validate({ key: licenseKey })).body.product_id;
    api.clock.advance(120);
    expect((await api.request('DELETE', `/api/v1/products/${product}?force=true`, { key: store.key })).status).toBe(200);
    const response = await validate({ key: licenseKey });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'license_key_validation',
      livemode: false,
      valid: false,
      key: licenseKey,
      status: 'revoked',
      product_id: null,
      order_id: order.id,
      created: epoch(T0),
      revoked_at: epoch(T0) + 120,
    });
  });

  it('force-deleting revokes keys on the store’s test clock: revoked_at follows advance_clock, never before the key’s created', async () => {
    const own = await createStore(api.services);
    const key = own.keys.sk_test;
    const advance = async (seconds: number) =>
      expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } })).status).toBe(200);
    const created = await api.request('POST', '/api/v1/products', { key, body: { name: 'App', amount: 4900 } });
    expect(created.status).toBe(201);
    // The operator's product:attach-license.
    await api.services.db.update(products).set({ hasLicense: true }).where(eq(products.id, created.body.id));
    await advance(3600);
    const session = await api.request('POST', '/api/v1/checkout/sessions', { key, body: { price_id: created.body.price_id, customer_email: 'buyer@example.com' } });
    expect(session.status).toBe(201);
    expect(await payCheckoutSession(api.services, { sessionId: session.body.id, card: validCard() })).toMatchObject({ status: 'paid' });
    const [licenseKey] = (await api.request('GET', `/api/v1/orders/${session.body.order_id}`, { key })).body.license_keys;
    await advance(7200);
    expect((await api.request('DELETE', `/api/v1/products/${created.body.id}?force=true`, { key })).status).toBe(200);
    const response = await validate({ key: licenseKey }, key);
    expect(response.body).toMatchObject({ status: 'revoked', created: epoch(T0) + 3600, revoked_at: epoch(T0) + 3600 + 7200 });
  });

  it.each([
    ['a missing key', {}, 'key'],
    ['an empty key', { key: '' }, 'key'],
    ['a number', { key: 12345 }, 'key'],
    ['a key over 64 characters', { key: 'LK-'.padEnd(65, 'A') }, 'key'],
    ['an unknown field', { key: 'LK-AAAAA-BBBBB-CCCCC-DDDDD', product_id: 'prod_x' }, 'product_id'],
  ])('%s → 400 parameter_invalid', async (_name, body, param) => {
    expectError(await validate(body), 400, 'parameter_invalid', param);
  });

  it('without a key → 401 missing_api_key; with a publishable key → 401 wrong_key_type', async () => {
    const { licenseKey } = await licensedOrder();
    expectError(await api.request('POST', VALIDATE, { body: { key: licenseKey } }), 401, 'missing_api_key');
    expectError(await validate({ key: licenseKey }, store.keys.pk_test), 401, 'wrong_key_type');
  });
});
