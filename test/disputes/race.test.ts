import { describe, expect, it } from 'vitest';
import { verifyLedger } from '@/server/balance/verify';
import { openDispute } from '@/server/disputes/service';
import { ApiError } from '@/server/errors';
import { createStore } from '../support/factories';
import { listOf } from '../support/lists';
import { T0 } from '../support/api';
import { useTestApi } from '../support/server';
import { paidOrder } from './support';

/**
 * A refund and a dispute of one order arriving together: they take the order's lock in turn, so
 * either the refund comes first and the dispute takes what it left, or the dispute comes first and
 * the refund is refused; never both in full, and the ledger follows from the documents each time.
 */
const api = useTestApi();

/** How long the dispute waits after the refund is sent, per round: from together to after the refund's reservation or its end. */
const DELAYS_MS = [0, 2, 5, 10, 20, 40, 80, 160];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a refund and a dispute of one order at once', () => {
  it('end as one of the two orders the rules allow, each time; ledger:verify agrees', { timeout: 120_000 }, async () => {
    api.clock.set(T0);
    const store = await createStore(api.services, { taxCalculation: true });
    const key = store.keys.sk_test;
    const scope = { storeId: store.id, livemode: false };
    const seen = new Set<string>();
    for (const [round, delay] of DELAYS_MS.entries()) {
      const order = await paidOrder(api, key);
      // Every other round refunds in full: then a dispute after it finds nothing left.
      const amount = round % 2 === 0 ? 300 : undefined;
      const times = { now: api.clock.now(), wallNow: api.clock.now() };
      const [refund, dispute] = await Promise.all([
        api.request('POST', '/api/v1/refunds', { key, body: { order_id: order.id, ...(amount ? { amount } : {}) } }),
        pause(delay)
          .then(() => api.services.db.transaction((tx) => openDispute(tx, scope, order.id, { reason: 'fraudulent' }, { fee: 1500, times })))
          .catch((error: unknown) => error),
      ]);
      const refunds = (await listOf(api, '/api/v1/refunds', key, `order_id=${order.id}`)).body.data;
      const disputes = (await listOf(api, '/api/v1/disputes', key, `order_id=${order.id}`)).body.data;
      if (refund.status === 201) {
        seen.add('refund first');
        expect(refund.body).toMatchObject({ status: 'succeeded', amount: amount ?? 1190 });
        expect(refunds).toEqual([refund.body]);
        if (amount) {
          expect(dispute).toMatchObject({ orderId: order.id, amount: 1190 - amount });
          expect(disputes).toEqual([expect.objectContaining({ id: (dispute as { id: string }).id, amount: 1190 - amount })]);
        } else {
          expect(dispute).toBeInstanceOf(ApiError);
          expect(dispute).toMatchObject({ code: 'order_already_processed' });
          expect(disputes).toEqual([]);
        }
      } else {
        seen.add('dispute first');
        expect(refund.status).toBe(409);
        expect(refund.body.error.code).toBe('order_disputed');
        expect(dispute).toMatchObject({ orderId: order.id, amount: 1190 });
        expect(refunds).toEqual([]);
        expect(disputes).toEqual([expect.objectContaining({ amount: 1190 })]);
      }
      const verified = await verifyLedger(api.services.db, api.clock.now(), store.id);
      expect(verified).toMatchObject({ ok: true, checked: { orders: round + 1 } });
    }
    console.log(`refund and dispute at once, ${DELAYS_MS.length} rounds: ${[...seen].join(', ')}`);
  });
});
