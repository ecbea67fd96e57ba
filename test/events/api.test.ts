import { describe, expect, it } from 'vitest';
import { createStore } from '../support/factories';
import { createProduct, epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

const api = useTestApi();
const store = useTestStore(api);

const listEvents = async (query = '', key = store.key) => {
  const response = await api.request('GET', `/api/v1/events${query}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { object: string; data: any[]; has_more: boolean; url: string; livemode: boolean };
};
const ids = (list: { data: { id: string }[] }) => list.data.map((event) => event.id);

/** A product created, renamed and deleted: three events of one object, one second apart. */
async function productLifecycle(key = store.key) {
  const created = await createProduct(api, key, { name: 'Before' });
  api.clock.advance(1);
  const updated = await api.request('PATCH', `/api/v1/products/${created.id}`, { key, body: { name: 'After' } });
  expect(updated.status).toBe(200);
  api.clock.advance(1);
  const deleted = await api.request('DELETE', `/api/v1/products/${created.id}`, { key });
  expect(deleted.status).toBe(200);
  return { created, updated: updated.body, deleted: deleted.body };
}

describe('GET /api/v1/events', () => {
  it('records a product’s create, update and delete with the object as the API answered it, newest first', async () => {
    const product = await productLifecycle();
    const list = await listEvents(`?object_id=${product.created.id}`);
    expect(list).toEqual({ object: 'list', data: expect.any(Array), has_more: false, url: '/api/v1/events', livemode: false });
    const [deleted, updated, created] = list.data;
    expect(created).toEqual({
      id: expect.stringMatching(/^evt_test_[0-9A-Za-z]{24,}$/),
      object: 'event',
      type: 'product.created',
      created: epoch(T0),
      livemode: false,
      sequence: 1,
      data: { object: product.created },
    });
    expect(updated).toEqual({
      id: expect.stringMatching(/^evt_test_/),
      object: 'event',
      type: 'product.updated',
      created: epoch(T0) + 1,
      livemode: false,
      sequence: 2,
      data: { object: product.updated, previous_attributes: { name: 'Before', updated: product.created.updated } },
    });
    expect(deleted).toEqual({
      id: expect.stringMatching(/^evt_test_/),
      object: 'event',
      type: 'product.deleted',
      created: epoch(T0) + 2,
      livemode: false,
      sequence: 3,
      data: { object: { id: product.created.id, object: 'product', deleted: true, livemode: false } },
    });
  });

  it('an update that changes nothing records nothing', async () => {
    const product = await createProduct(api, store.key, { name: 'Same' });
    const same = await api.request('PATCH', `/api/v1/products/${product.id}`, { key: store.key, body: { name: 'Same' } });
    expect(same.status).toBe(200);
    expect((await listEvents(`?object_id=${product.id}`)).data.map((event) => event.type)).toEqual(['product.created']);
  });

  it('GET /events/{id} reads an event, also after its object was deleted', async () => {
    const product = await productLifecycle();
    const [, , created] = (await listEvents(`?object_id=${product.created.id}`)).data;
    const read = await api.request('GET', `/api/v1/events/${created.id}`, { key: store.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created);
  });

  it('type filters one type or a prefix; anything else is 400 naming `type`', async () => {
    const product = await productLifecycle();
    const only = await listEvents(`?type=product.updated&object_id=${product.created.id}`);
    expect(only.data.map((event) => event.type)).toEqual(['product.updated']);
    const prefix = await listEvents(`?type=product.*&object_id=${product.created.id}`);
    expect(prefix.data.map((event) => event.type)).toEqual(['product.deleted', 'product.updated', 'product.created']);
    expect((await listEvents(`?type=checkout.session.*&object_id=${product.created.id}`)).data).toEqual([]);
    for (const bad of ['product', 'product.renamed', 'nothing.*', '*', 'product.created.*', '']) {
      const response = await api.request('GET', `/api/v1/events?type=${encodeURIComponent(bad)}`, { key: store.key });
      expectError(response, 400, 'parameter_invalid', 'type');
    }
  });

  it('created_gte and created_lte are inclusive epoch seconds; bad values are 400 naming them', async () => {
    const product = await productLifecycle();
    const types = async (query: string) => (await listEvents(`?object_id=${product.created.id}${query}`)).data.map((event) => event.type);
    expect(await types(`&created_gte=${epoch(T0) + 1}`)).toEqual(['product.deleted', 'product.updated']);
    expect(await types(`&created_lte=${epoch(T0) + 1}`)).toEqual(['product.updated', 'product.created']);
    expect(await types(`&created_gte=${epoch(T0) + 1}&created_lte=${epoch(T0) + 1}`)).toEqual(['product.updated']);
    for (const [name, value] of [
      ['created_gte', 'yesterday'],
      ['created_lte', '-1'],
      ['created_gte', '1.5'],
    ]) {
      expectError(await api.request('GET', `/api/v1/events?${name}=${value}`, { key: store.key }), 400, 'parameter_invalid', name);
    }
  });

  it('pages back with starting_after and follows the stream forward with ending_before', async () => {
    const own = await createStore(api.services);
    const key = own.keys.sk_test;
    const products = [];
    for (let index = 0; index < 5; index += 1) products.push(await createProduct(api, key, { name: `P${index}` }));
    const all = await listEvents('?limit=100', key);
    expect(all.data.map((event) => event.data.object.id)).toEqual(products.map((product) => product.id).reverse());

    const first = await listEvents('?limit=2', key);
    expect(first.has_more).toBe(true);
    const second = await listEvents(`?limit=2&starting_after=${first.data[1].id}`, key);
    const third = await listEvents(`?limit=2&starting_after=${second.data[1].id}`, key);
    expect([...ids(first), ...ids(second), ...ids(third)]).toEqual(ids(all));
    expect(third.has_more).toBe(false);

    // ending_before: the events recorded right after the cursor, still newest first.
    const oldest = all.data[4].id;
    const next = await listEvents(`?limit=2&ending_before=${oldest}`, key);
    expect(ids(next)).toEqual([all.data[2].id, all.data[3].id]);
    expect(next.has_more).toBe(true);
    const rest = await listEvents(`?limit=2&ending_before=${next.data[0].id}`, key);
    expect(ids(rest)).toEqual([all.data[0].id, all.data[1].id]);
    expect(rest.has_more).toBe(false);
    expect((await listEvents(`?ending_before=${all.data[0].id}`, key)).data).toEqual([]);
  });

  it('limit outside 1–100 is 400; an unknown, foreign or other-environment cursor is 404 naming it', async () => {
    for (const limit of ['0', '101', 'ten']) {
      expectError(await api.request('GET', `/api/v1/events?limit=${limit}`, { key: store.key }), 400, 'parameter_invalid', 'limit');
    }
    const foreign = await createStore(api.services);
    await createProduct(api, foreign.keys.sk_test);
    await createProduct(api, store.keys.sk_live);
    const [foreignEvent] = (await listEvents('', foreign.keys.sk_test)).data;
    const [liveEvent] = (await listEvents('', store.keys.sk_live)).data;
    for (const param of ['starting_after', 'ending_before']) {
      const responses = await Promise.all([foreignEvent.id, liveEvent.id, 'evt_test_000000000000000000000000'].map((id) => rawApiRequest(api, 'GET', `/api/v1/events?${param}=${id}`, store.key)));
      expectIdenticalMissing(responses, param);
    }
    const both = await api.request('GET', `/api/v1/events?starting_after=${liveEvent.id}&ending_before=${liveEvent.id}`, { key: store.keys.sk_live });
    expectError(both, 400, 'parameter_invalid', 'ending_before');
  });

  it('a store sees only its own events of its own environment', async () => {
    const foreign = await createStore(api.services);
    const foreignProduct = await createProduct(api, foreign.keys.sk_test);
    const liveProduct = await createProduct(api, store.keys.sk_live);
    const testList = await listEvents('?limit=100');
    expect(testList.data.every((event) => event.livemode === false)).toBe(true);
    expect(testList.data.map((event) => event.data.object.id)).not.toContain(foreignProduct.id);
    expect(testList.data.map((event) => event.data.object.id)).not.toContain(liveProduct.id);
    const liveList = await listEvents('', store.keys.sk_live);
    expect(liveList.livemode).toBe(true);
    expect(liveList.data[0]).toMatchObject({ type: 'product.created', livemode: true, data: { object: { id: liveProduct.id } } });
    expect(liveList.data[0].id).toMatch(/^evt_live_/);

    const [foreignEvent] = (await listEvents('', foreign.keys.sk_test)).data;
    const responses = await Promise.all([foreignEvent.id, liveList.data[0].id, 'evt_test_000000000000000000000000'].map((id) => rawApiRequest(api, 'GET', `/api/v1/events/${id}`, store.key)));
    expectIdenticalMissing(responses, 'id');
  });

  it('ten events a page unless limit says otherwise; an unknown parameter is 400 naming it', async () => {
    const own = await createStore(api.services);
    for (let index = 0; index < 11; index += 1) await createProduct(api, own.keys.sk_test, { name: `P${index}` });
    const page = await listEvents('', own.keys.sk_test);
    expect(page.data).toHaveLength(10);
    expect(page.has_more).toBe(true);
    expectError(await api.request('GET', '/api/v1/events?kind=product.created', { key: own.keys.sk_test }), 400, 'parameter_invalid', 'kind');
  });

  it('publishable keys are refused', async () => {
    expectError(await api.request('GET', '/api/v1/events', { key: store.keys.pk_test }), 401, 'wrong_key_type');
  });
});
