import { describe, expect, it } from 'vitest';
import { expectError } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';

// Each event is sent to every endpoint of its store, so a store has a bounded number of them
// (MAX_WEBHOOK_ENDPOINTS_PER_STORE, 100 by default); a limit of 3 exercises the same rule.
const api = useTestApi({ maxWebhookEndpointsPerStore: 3 });

const ENDPOINTS = '/api/v1/webhook_endpoints';
/** Live mode takes only https to a public address (an address literal: no DNS in tests). */
const post = (key: string, headers: Record<string, string> = {}) =>
  api.request('POST', ENDPOINTS, { key, body: { url: key.startsWith('sk_live_') ? 'https://93.184.216.34/hooks' : 'http://127.0.0.1:4000/hooks' }, headers });

describe('POST /api/v1/webhook_endpoints: endpoint limit per store and environment', () => {
  it('beyond the limit → 409 webhook_endpoint_limit_reached, nothing registered; deleting one makes room again', async () => {
    const store = await createStore(api.services);
    const created = [];
    for (let i = 0; i < 3; i += 1) created.push((await post(store.keys.sk_test)).body);
    const refused = await post(store.keys.sk_test);
    expectError(refused, 409, 'webhook_endpoint_limit_reached');
    expect(refused.body.error.message).toContain('3 webhook endpoints in test mode');
    expect((await api.request('GET', `${ENDPOINTS}?limit=100`, { key: store.keys.sk_test })).body.data).toHaveLength(3);
    expect((await api.request('DELETE', `${ENDPOINTS}/${created[0].id}`, { key: store.keys.sk_test })).status).toBe(200);
    expect((await post(store.keys.sk_test)).status).toBe(201);
  });

  it('each environment and each store counts on its own', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    for (let i = 0; i < 3; i += 1) await post(store.keys.sk_test);
    expectError(await post(store.keys.sk_test), 409, 'webhook_endpoint_limit_reached');
    expect((await post(store.keys.sk_live)).status).toBe(201);
    expect((await post(other.keys.sk_test)).status).toBe(201);
  });

  it('concurrent creates cannot overshoot the limit, with or without an Idempotency-Key', async () => {
    const store = await createStore(api.services);
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => post(store.keys.sk_test, i % 2 ? { 'Idempotency-Key': `endpoint-${i}` } : {})));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = responses.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    for (const response of refused) expectError(response, 409, 'webhook_endpoint_limit_reached');
    expect((await api.request('GET', `${ENDPOINTS}?limit=100`, { key: store.keys.sk_test })).body.data).toHaveLength(3);
  });

  it('a refused create with an Idempotency-Key is not remembered: the same key succeeds once there is room', async () => {
    const store = await createStore(api.services);
    const created = [];
    for (let i = 0; i < 3; i += 1) created.push((await post(store.keys.sk_test)).body);
    expectError(await post(store.keys.sk_test, { 'Idempotency-Key': 'after-cleanup' }), 409, 'webhook_endpoint_limit_reached');
    await api.request('DELETE', `${ENDPOINTS}/${created[0].id}`, { key: store.keys.sk_test });
    const retried = await post(store.keys.sk_test, { 'Idempotency-Key': 'after-cleanup' });
    expect(retried.status).toBe(201);
    expect((await post(store.keys.sk_test, { 'Idempotency-Key': 'after-cleanup' })).body.id).toBe(retried.body.id);
  });
});
