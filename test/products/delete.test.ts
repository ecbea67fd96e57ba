import { describe, expect, it } from 'vitest';
import type { SubscriptionStatus } from '@/db/schema';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { createProduct, expectError, expectIdenticalMissing, insertLicenseKey, insertSubscription, PRODUCTS, rawApiRequest, readLicenseKey, readSubscription, T0 } from './support';

const api = useTestApi();
const store = useTestStore(api);

const remove = (id: string, query = '', withKey = store.key) => api.request('DELETE', `${PRODUCTS}/${id}${query}`, { key: withKey });
const exists = async (id: string, withKey = store.key) => (await api.request('GET', `${PRODUCTS}/${id}`, { key: withKey })).status === 200;

describe('DELETE /api/v1/products/{id}', () => {
  it('answers the deleted-product object, and the product is gone from reads and lists', async () => {
    const product = await createProduct(api, store.key);
    const response = await remove(product.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: product.id, object: 'product', deleted: true, livemode: false });
    expectError(await api.request('GET', `${PRODUCTS}/${product.id}`, { key: store.key }), 404, 'resource_missing', 'id');
    expect((await api.request('GET', `${PRODUCTS}?sku=${product.sku}`, { key: store.key })).body.data).toEqual([]);
  });

  it('a live product is deleted with the live key and answers livemode true', async () => {
    const product = await createProduct(api, store.keys.sk_live);
    const response = await remove(product.id, '', store.keys.sk_live);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: product.id, object: 'product', deleted: true, livemode: true });
  });

  it('deleting twice → the second answers 404 resource_missing', async () => {
    const product = await createProduct(api, store.key);
    expect((await remove(product.id)).status).toBe(200);
    expectError(await remove(product.id), 404, 'resource_missing', 'id');
  });

  it('a deleted product’s sku is free again', async () => {
    const product = await createProduct(api, store.key);
    expect((await remove(product.id)).status).toBe(200);
    expect((await createProduct(api, store.key, { sku: product.sku })).sku).toBe(product.sku);
  });

  it('another store’s and the other environment’s product → 404 resource_missing, byte-identical with unknown, and it survives', async () => {
    const other = await createStore(api.services);
    const product = await createProduct(api, store.key);
    const path = `${PRODUCTS}/${product.id}?force=true`;
    const foreign = await rawApiRequest(api, 'DELETE', path, other.keys.sk_test);
    const otherEnvironment = await rawApiRequest(api, 'DELETE', path, store.keys.sk_live);
    expect(await exists(product.id)).toBe(true);
    expect((await remove(product.id)).status).toBe(200);
    const unknown = await rawApiRequest(api, 'DELETE', path, store.key);
    expectIdenticalMissing([foreign, otherEnvironment, unknown], 'id');
  });

  it.each(['TRUE', '1', 'yes'])('force=%s → 400 parameter_invalid: force takes only "true" or "false"', async (force) => {
    const product = await createProduct(api, store.key);
    expectError(await remove(product.id, `?force=${force}`), 400, 'parameter_invalid', 'force');
    expect(await exists(product.id)).toBe(true);
  });

  it('an unknown query parameter is refused and nothing is deleted', async () => {
    const product = await createProduct(api, store.key);
    expectError(await remove(product.id, '?forced=true'), 400, 'parameter_invalid', 'forced');
    expect(await exists(product.id)).toBe(true);
  });
});

describe('DELETE /api/v1/products/{id}: subscription guard', () => {
  const blocking: SubscriptionStatus[] = ['pending', 'active', 'past_due', 'suspended'];
  it.each(blocking)('a %s subscription → 409 product_has_active_subscriptions, with or without force', async (status) => {
    const product = await createProduct(api, store.key, { mode: 'recurring', interval: 'month' });
    await insertSubscription(api, store, product.id, status);
    for (const query of ['', '?force=false', '?force=true']) {
      expectError(await remove(product.id, query), 409, 'product_has_active_subscriptions');
    }
    expect(await exists(product.id)).toBe(true);
  });

  const finished: SubscriptionStatus[] = ['canceled', 'expired', 'incomplete'];
  it.each(finished)('a %s subscription does not block; it stays, detached from the product', async (status) => {
    const product = await createProduct(api, store.key, { mode: 'recurring', interval: 'month' });
    const subscription = await insertSubscription(api, store, product.id, status);
    expect((await remove(product.id)).status).toBe(200);
    expect(await readSubscription(api, subscription)).toMatchObject({ status, productId: null });
  });

  it('the subscription guard wins over the license guard, even with force, and revokes nothing', async () => {
    const product = await createProduct(api, store.key, { mode: 'recurring', interval: 'month' });
    await insertSubscription(api, store, product.id, 'active');
    const license = await insertLicenseKey(api, store, product.id);
    expectError(await remove(product.id, '?force=true'), 409, 'product_has_active_subscriptions');
    expect(await readLicenseKey(api, license)).toMatchObject({ productId: product.id, revokedAt: null });
  });

  it('another product’s active subscription does not block', async () => {
    const product = await createProduct(api, store.key);
    const sibling = await createProduct(api, store.key, { mode: 'recurring', interval: 'month' });
    await insertSubscription(api, store, sibling.id, 'active');
    expect((await remove(product.id)).status).toBe(200);
    expect(await exists(sibling.id)).toBe(true);
  });
});

describe('DELETE /api/v1/products/{id}: license guard', () => {
  it.each(['', '?force=false'])('issued license keys without force (%s) → 409 product_has_licenses, keys untouched', async (query) => {
    const product = await createProduct(api, store.key);
    const license = await insertLicenseKey(api, store, product.id);
    expectError(await remove(product.id, query), 409, 'product_has_licenses');
    expect(await exists(product.id)).toBe(true);
    expect(await readLicenseKey(api, license)).toMatchObject({ productId: product.id, revokedAt: null });
  });

  it('force=true deletes and revokes every issued key at once', async () => {
    const product = await createProduct(api, store.key);
    const licenses = [await insertLicenseKey(api, store, product.id), await insertLicenseKey(api, store, product.id)];
    const alreadyRevokedAt = new Date(T0.getTime() - 86_400_000);
    const revoked = await insertLicenseKey(api, store, product.id, { revokedAt: alreadyRevokedAt });
    api.clock.advance(30);
    const response = await remove(product.id, '?force=true');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: product.id, object: 'product', deleted: true, livemode: false });
    for (const id of licenses) expect(await readLicenseKey(api, id)).toMatchObject({ productId: null, revokedAt: api.clock.now() });
    expect(await readLicenseKey(api, revoked)).toMatchObject({ productId: null, revokedAt: alreadyRevokedAt });
  });

  it('keys that are all revoked already do not block', async () => {
    const product = await createProduct(api, store.key);
    await insertLicenseKey(api, store, product.id, { revokedAt: T0 });
    expect((await remove(product.id)).status).toBe(200);
  });

  it('another product’s keys neither block nor get revoked', async () => {
    const product = await createProduct(api, store.key);
    const sibling = await createProduct(api, store.key);
    const license = await insertLicenseKey(api, store, sibling.id);
    expect((await remove(product.id, '?force=true')).status).toBe(200);
    expect(await readLicenseKey(api, license)).toMatchObject({ productId: sibling.id, revokedAt: null });
  });
});

describe('DELETE /api/v1/products/{id}: authentication', () => {
  it('without a key → 401 missing_api_key, and the product survives', async () => {
    const product = await createProduct(api, store.key);
    expectError(await api.request('DELETE', `${PRODUCTS}/${product.id}`), 401, 'missing_api_key');
    expect(await exists(product.id)).toBe(true);
  });

  it('with a publishable key → 401 wrong_key_type, and the product survives', async () => {
    const product = await createProduct(api, store.key);
    expectError(await remove(product.id, '?force=true', store.keys.pk_test), 401, 'wrong_key_type');
    expect(await exists(product.id)).toBe(true);
  });
});
