import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@/server/ids';
import { createStore, uniqueSku } from '../support/factories';
import { useTestApi } from '../support/server';
import { expectApiError, rawRequest, type RawResponse } from '../http/helpers';

const api = useTestApi();

type Slot = 'sk_test' | 'sk_live';
interface Tenant {
  name: string;
  keys: Record<Slot, string>;
  products: Record<Slot, string>;
}

const tenants: Tenant[] = [];

async function createTenant(name: string): Promise<Tenant> {
  const store = await createStore(api.services, { name });
  const products = {} as Record<Slot, string>;
  for (const slot of ['sk_test', 'sk_live'] as const) {
    const created = await api.request('POST', '/api/v1/products', { key: store.keys[slot], body: { name: `${name} ${slot}`, amount: 1200, sku: uniqueSku() } });
    expect(created.status).toBe(201);
    expect(created.body.livemode).toBe(slot === 'sk_live');
    products[slot] = created.body.id;
  }
  return { name, keys: { sk_test: store.keys.sk_test, sk_live: store.keys.sk_live }, products };
}

const get = (key: string, id: string) => rawRequest(api.baseUrl, 'GET', `/api/v1/products/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${key}` } });

/** Everything a caller can observe, minus the per-request id. */
function observable(response: RawResponse) {
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !['request-id', 'date', 'content-length'].includes(name)));
  return { status: response.status, headers, text: response.text };
}

beforeAll(async () => {
  tenants.push(await createTenant('Store A'), await createTenant('Store B'));
});

describe('tenant and environment isolation on GET /products/{id}', () => {
  it('each key reads its own product', async () => {
    for (const tenant of tenants) {
      for (const slot of ['sk_test', 'sk_live'] as const) {
        const response = await get(tenant.keys[slot], tenant.products[slot]);
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ id: tenant.products[slot], object: 'product', livemode: slot === 'sk_live', name: `${tenant.name} ${slot}` });
      }
    }
  });

  it('another store’s id, the other environment’s id and an unknown id answer 404 resource_missing with byte-identical bodies', async () => {
    for (const tenant of tenants) {
      for (const slot of ['sk_test', 'sk_live'] as const) {
        const key = tenant.keys[slot];
        const other = tenants.find((t) => t !== tenant)!;
        const otherSlot: Slot = slot === 'sk_test' ? 'sk_live' : 'sk_test';
        const cases: Record<string, string> = {
          'unknown id of this environment': newId('prod', slot === 'sk_live'),
          'unknown id of the other environment': newId('prod', slot !== 'sk_live'),
          'malformed id': 'nonexistent',
          'same store, other environment': tenant.products[otherSlot],
          'other store, same environment': other.products[slot],
          'other store, other environment': other.products[otherSlot],
          'a price id of this store': tenant.products[slot].replace(/^prod_/, 'price_'),
        };
        const answers = await Promise.all(Object.entries(cases).map(async ([name, id]) => ({ name, response: await get(key, id) })));
        const reference = answers[0]!.response;
        expectApiError(reference, 404, 'resource_missing');
        // Nothing in the answer may depend on which id was asked for.
        expect(reference.text).not.toContain(cases['unknown id of this environment']);
        for (const { name, response } of answers) {
          expectApiError(response, 404, 'resource_missing');
          expect({ name, ...observable(response) }).toEqual({ name, ...observable(reference) });
        }
      }
    }
  });

  it('updates and deletes of another store’s or environment’s product answer like an unknown id and change nothing', async () => {
    const [a, b] = tenants as [Tenant, Tenant];
    const send = (method: string, key: string, id: string, body?: object) =>
      rawRequest(api.baseUrl, method, `/api/v1/products/${id}`, {
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    // Seen from A's test key: B's test and live products, and A's own live product.
    const targets = [
      { id: b.products.sk_test, ownerKey: b.keys.sk_test },
      { id: b.products.sk_live, ownerKey: b.keys.sk_live },
      { id: a.products.sk_live, ownerKey: a.keys.sk_live },
    ];
    const before = await Promise.all(targets.map(({ id, ownerKey }) => get(ownerKey, id)));
    for (const [method, body] of [
      ['PATCH', { name: 'Hijacked' }],
      ['POST', { name: 'Hijacked' }],
      ['DELETE', undefined],
    ] as const) {
      const reference = await send(method, a.keys.sk_test, newId('prod', false), body);
      expectApiError(reference, 404, 'resource_missing');
      for (const { id } of targets) {
        const response = await send(method, a.keys.sk_test, id, body);
        expect({ method, id, ...observable(response) }).toEqual({ method, id, ...observable(reference) });
      }
    }
    const after = await Promise.all(targets.map(({ id, ownerKey }) => get(ownerKey, id)));
    expect(after.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(after.map((r) => r.text)).toEqual(before.map((r) => r.text));
  });

  it('a list shows only the key’s own store and environment', async () => {
    for (const tenant of tenants) {
      for (const slot of ['sk_test', 'sk_live'] as const) {
        const list = await rawRequest(api.baseUrl, 'GET', '/api/v1/products?limit=100', { headers: { authorization: `Bearer ${tenant.keys[slot]}` } });
        expect(list.status).toBe(200);
        expect(list.body).toMatchObject({ object: 'list', livemode: slot === 'sk_live', has_more: false });
        expect(list.body.data.map((product: { id: string }) => product.id)).toEqual([tenant.products[slot]]);
      }
    }
  });

  it('starting_after with a foreign or other-environment id answers like an unknown id', async () => {
    const [a, b] = tenants as [Tenant, Tenant];
    const list = (after: string) => rawRequest(api.baseUrl, 'GET', `/api/v1/products?starting_after=${encodeURIComponent(after)}`, { headers: { authorization: `Bearer ${a.keys.sk_test}` } });
    const own = await list(a.products.sk_test);
    expect(own.status).toBe(200);
    const reference = await list(newId('prod', false));
    for (const id of [b.products.sk_test, b.products.sk_live, a.products.sk_live]) {
      const response = await list(id);
      expect(observable(response)).toEqual(observable(reference));
    }
    expect(reference.status).toBe(404);
    expectApiError(reference, 404, 'resource_missing');
  });

  it('a foreign id is never revealed by the message, only the generic 404', async () => {
    const [a, b] = tenants as [Tenant, Tenant];
    const response = await get(a.keys.sk_test, b.products.sk_test);
    expect(response.text).not.toContain(b.products.sk_test);
    expect(response.text).not.toContain(b.name);
  });

  it('after probing foreign ids the owners still read their products unchanged', async () => {
    const [a, b] = tenants as [Tenant, Tenant];
    const before = await get(b.keys.sk_live, b.products.sk_live);
    await get(a.keys.sk_live, b.products.sk_live);
    await get(b.keys.sk_test, b.products.sk_live);
    const after = await get(b.keys.sk_live, b.products.sk_live);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
  });
});
