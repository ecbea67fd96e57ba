import { beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { expectError } from '../support/api';
import { PLAN, SUBSCRIPTIONS } from './support';

/**
 * With SUBSCRIPTIONS_ENABLED unset (the default), creating and cancelling
 * answer 503 `feature_unavailable` in test and live, before any lookup or validation, even for a
 * store with the `subscriptions` flag; everything else keeps working.
 */
const api = useTestApi();
let keys: { sk_test: string; sk_live: string };

beforeAll(async () => {
  expect(api.services.config.subscriptionsEnabled).toBe(false);
  keys = (await createStore(api.services, { subscriptions: true })).keys;
});

describe('subscriptions switched off on the platform (SUBSCRIPTIONS_ENABLED unset)', () => {
  for (const mode of ['sk_test', 'sk_live'] as const) {
    it(`POST /subscriptions → 503 feature_unavailable (${mode}), even with an invalid body`, async () => {
      const refused = await api.request('POST', SUBSCRIPTIONS, { key: keys[mode], body: PLAN });
      expectError(refused, 503, 'feature_unavailable');
      // The operator reading it learns the switch.
      expect(refused.body.error.message).toContain('SUBSCRIPTIONS_ENABLED=true');
      expectError(await api.request('POST', SUBSCRIPTIONS, { key: keys[mode], body: { amount: 'x', currency: 'usd' } }), 503, 'feature_unavailable');
    });

    it(`DELETE /subscriptions/{id} → 503 feature_unavailable before the lookup (${mode})`, async () => {
      expectError(await api.request('DELETE', `${SUBSCRIPTIONS}/sub_test_unknown`, { key: keys[mode] }), 503, 'feature_unavailable');
    });

    it(`POST /subscriptions/{id}/update_payment_method_link → 503 feature_unavailable before the lookup (${mode})`, async () => {
      expectError(await api.request('POST', `${SUBSCRIPTIONS}/sub_test_unknown/update_payment_method_link`, { key: keys[mode], body: {} }), 503, 'feature_unavailable');
    });
  }

  it('the switch comes before the `Idempotency-Key` is read: a malformed key still hears 503', async () => {
    const headers = { 'idempotency-key': 'k'.repeat(192) };
    expectError(await api.request('POST', SUBSCRIPTIONS, { key: keys.sk_test, body: PLAN, headers }), 503, 'feature_unavailable');
  });

  it('a store without the flag hears 503 too: the platform switch comes first', async () => {
    const plain = await createStore(api.services);
    expectError(await api.request('POST', SUBSCRIPTIONS, { key: plain.keys.sk_test, body: PLAN }), 503, 'feature_unavailable');
  });

  it('the key is still checked first: no key → 401, a publishable key → 401 wrong_key_type', async () => {
    expectError(await api.request('POST', SUBSCRIPTIONS, { body: PLAN }), 401, 'missing_api_key');
    const store = await createStore(api.services, { subscriptions: true });
    expectError(await api.request('POST', SUBSCRIPTIONS, { key: store.keys.pk_test, body: PLAN }), 401, 'wrong_key_type');
  });

  it('everything else works: list, retrieve and update answer as usual', async () => {
    const list = await api.request('GET', SUBSCRIPTIONS, { key: keys.sk_test });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ object: 'list', data: [], has_more: false });
    expectError(await api.request('GET', `${SUBSCRIPTIONS}/sub_test_unknown`, { key: keys.sk_test }), 404, 'resource_missing', 'id');
    expectError(await api.request('GET', `${SUBSCRIPTIONS}/checkout/subchk_test_unknown`, { key: keys.sk_test }), 404, 'resource_missing', 'id');
    expectError(await api.request('POST', `${SUBSCRIPTIONS}/sub_test_unknown`, { key: keys.sk_test, body: { metadata: {} } }), 404, 'resource_missing', 'id');
  });
});
