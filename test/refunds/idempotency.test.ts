import { describe, expect, it } from 'vitest';
import { expectError } from '../products/support';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { insertOrder, readOrder } from '../orders/fixtures';

const api = useTestApi();
const store = useTestStore(api);

const refund = (body: unknown, idempotencyKey: string, withKey = store.key) => api.request('POST', '/api/v1/refunds', { key: withKey, body, headers: { 'idempotency-key': idempotencyKey } });

describe('POST /api/v1/refunds with Idempotency-Key', () => {
  it('a repeat with the same key and body replays the original refund with 200 and refunds nothing more', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    const first = await refund({ order_id: order.id, amount: 300 }, 'refund-key-1');
    expect(first.status).toBe(201);
    const again = await refund({ amount: 300, order_id: order.id }, 'refund-key-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'partially_refunded', amountRefunded: 300 });
  });

  it('the same key with another body → 409 idempotency_key_reused, nothing refunded', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    expect((await refund({ order_id: order.id, amount: 300 }, 'refund-key-2')).status).toBe(201);
    expectError(await refund({ order_id: order.id, amount: 400 }, 'refund-key-2'), 409, 'idempotency_key_reused');
    expect(await readOrder(api, order.id)).toMatchObject({ amountRefunded: 300 });
  });

  it('N identical requests racing with one key refund exactly once and all answer the same refund', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    const responses = await Promise.all(Array.from({ length: 6 }, () => refund({ order_id: order.id, amount: 100 }, 'refund-race')));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    expect(await readOrder(api, order.id)).toMatchObject({ amountRefunded: 100 });
  });

  it('a refused request keeps its key free: the corrected retry with the same key refunds', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    expectError(await refund({ order_id: order.id, amount: 5000 }, 'refund-key-3'), 400, 'parameter_invalid', 'amount');
    expectError(await refund({ order_id: order.id, amount: 5000 }, 'refund-key-3'), 400, 'parameter_invalid', 'amount');
    // Another body now: the refused request left nothing under the key to compare against.
    expect((await refund({ order_id: order.id, amount: 500 }, 'refund-key-3')).status).toBe(201);
  });

  it('keys are scoped per store and environment: another store may use the same key', async () => {
    const other = await createStore(api.services);
    const mine = await insertOrder(api, store);
    const theirs = await insertOrder(api, other);
    expect((await refund({ order_id: mine.id }, 'shared-key')).status).toBe(201);
    expect((await refund({ order_id: theirs.id }, 'shared-key', other.keys.sk_test)).status).toBe(201);
  });

  it('an Idempotency-Key over 191 characters → 400 idempotency_key_invalid, nothing refunded', async () => {
    const order = await insertOrder(api, store);
    expectError(await refund({ order_id: order.id }, 'k'.repeat(192)), 400, 'idempotency_key_invalid');
    expect(await readOrder(api, order.id)).toMatchObject({ status: 'paid', amountRefunded: 0 });
  });
});
