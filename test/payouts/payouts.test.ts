import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { balanceTransactions, payouts, stores } from '@/db/schema';
import { verifyLedger } from '@/server/balance/verify';
import { runScheduledPayouts } from '@/server/payouts/jobs';
import { epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { listOf } from '../support/lists';
import { useTestApi } from '../support/server';
import { advanceClock, DAY } from '../billing/support';
import { balanceOf, entriesOf, newStore, paidOrder } from '../balance/support';

/** Payouts in test mode: what they settle, when the schedule makes them, and how they read. */
const api = useTestApi();

const PAYOUT_ID = /^po_test_[0-9A-Za-z]{24}$/;
const HOLD = 7 * DAY;
/** A product of 50.00 EUR + 19% VAT: 59.50 paid, 9.50 VAT, fee 5% (2.975 → 2.98) + 0.50: 46.52 net. */
const PRICE = 5000;
const NET = 5950 - 950 - 348;

const createPayout = (key: string, headers: Record<string, string> = {}) => api.request('POST', '/api/v1/payouts', { key, body: {}, headers });

/** Payouts only when asked, so the test clock can move without the schedule paying out. */
async function manualStore() {
  const store = await newStore(api);
  await api.services.db.update(stores).set({ payoutScheduleTest: 'manual' }).where(eq(stores.id, store.id));
  return store;
}

const sumOf = (entries: { amount: number }[]) => entries.reduce((sum, entry) => sum + entry.amount, 0);

describe('POST /api/v1/payouts', () => {
  it('settles exactly the available entries, to the cent; pending ones wait for the test clock; a refund lowers the next payout', async () => {
    api.clock.set(T0);
    const store = await manualStore();
    const first = await paidOrder(api, store.key, PRICE);
    expectError(await createPayout(store.key), 409, 'balance_insufficient');
    await advanceClock(api, store.key, 3 * DAY);
    const second = await paidOrder(api, store.key, PRICE);
    await advanceClock(api, store.key, 4 * DAY);
    expect(await balanceOf(api, store.key)).toMatchObject({ available: NET, pending: NET, payout_schedule: 'manual', next_payout_at: null });

    const created = await createPayout(store.key);
    expect(created.status).toBe(201);
    const now = epoch(T0) + HOLD;
    expect(created.body).toEqual({
      id: expect.stringMatching(PAYOUT_ID),
      object: 'payout',
      amount: NET,
      currency: 'eur',
      status: 'paid',
      failure_reason: null,
      arrival_date: now,
      destination: { iban_last4: '3000', account_holder: expect.any(String) },
      created: now,
      livemode: false,
    });
    const payout = created.body;
    expect(await balanceOf(api, store.key)).toMatchObject({ available: 0, pending: NET });
    for (const entry of await entriesOf(api, store.key, first.order.id)) expect(entry.payout_id).toBe(payout.id);
    for (const entry of await entriesOf(api, store.key, second.order.id)) expect(entry.payout_id).toBeNull();
    expect(await entriesOf(api, store.key, payout.id)).toEqual([
      expect.objectContaining({
        type: 'payout',
        amount: -NET,
        source: { type: 'payout', id: payout.id },
        description: `Payout ${payout.id}`,
        created: now,
        available_on: now,
        status: 'available',
        payout_id: null,
      }),
    ]);
    const settled = (await listOf(api, `/api/v1/payouts/${payout.id}/balance_transactions`, store.key, 'limit=100')).body.data;
    expect(settled.map((entry: { source: { id: string } }) => entry.source.id)).toEqual([first.order.id, first.order.id, first.order.id]);
    expect(sumOf(settled)).toBe(payout.amount);
    expect((await listOf(api, '/api/v1/balance_transactions', store.key, `payout_id=${payout.id}&limit=100`)).body.data).toEqual(settled);
    expectError(await createPayout(store.key), 409, 'balance_insufficient');

    // A refund after the payout is available at once: the next payout is that much lower.
    const refund = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: first.order.id, amount: 1190 } });
    expect(refund.status).toBe(201);
    await advanceClock(api, store.key, 3 * DAY);
    const next = await createPayout(store.key);
    expect(next.status).toBe(201);
    expect(next.body.amount).toBe(NET - 1000);
    const nextSettled = (await listOf(api, `/api/v1/payouts/${next.body.id}/balance_transactions`, store.key, 'limit=100')).body.data;
    expect(nextSettled).toHaveLength(5);
    expect(sumOf(nextSettled)).toBe(next.body.amount);

    const events = (await listOf(api, '/api/v1/events', store.key, `object_id=${payout.id}`)).body.data;
    expect(events.map((event: { type: string }) => event.type)).toEqual(['payout.paid', 'payout.created']);
    expect(events[1].data.object).toEqual({ ...payout, status: 'pending', arrival_date: null });
    expect(events[0].data).toEqual({ object: payout, previous_attributes: { status: 'pending', arrival_date: null } });
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true, checked: { payouts: 2 } });
  });

  it('below the minimum 409 balance_insufficient; live mode 409 payouts_held (destination_missing); nothing written', async () => {
    api.clock.set(T0);
    const store = await manualStore();
    await paidOrder(api, store.key, 700);
    await advanceClock(api, store.key, HOLD);
    const below = await createPayout(store.key);
    expectError(below, 409, 'balance_insufficient');
    expect(below.body.error.message).toMatch(/below the payout minimum \(10\.00 EUR\)/);
    const held = await createPayout(store.liveKey);
    expectError(held, 409, 'payouts_held');
    expect(held.body.error.message).toMatch(/destination_missing/);
    expect(await balanceOf(api, store.liveKey)).toMatchObject({ payout_hold: { reason: 'destination_missing', until: null } });
    expect(await api.services.db.select().from(payouts).where(eq(payouts.storeId, store.id))).toEqual([]);
  });

  it('an Idempotency-Key replays the payout (200, same body); a new request finds nothing left', async () => {
    api.clock.set(T0);
    const store = await manualStore();
    await paidOrder(api, store.key, PRICE);
    await advanceClock(api, store.key, HOLD);
    const first = await createPayout(store.key, { 'idempotency-key': 'payout-1' });
    expect(first.status).toBe(201);
    const replay = await createPayout(store.key, { 'idempotency-key': 'payout-1' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expectError(await createPayout(store.key, { 'idempotency-key': 'payout-2' }), 409, 'balance_insufficient');
    expect((await listOf(api, '/api/v1/payouts', store.key)).body.data).toEqual([first.body]);
  });
});

describe('the schedule', () => {
  it('weekly by default: crossing a Monday makes one payout of what is available; several Mondays still one; none below the minimum', async () => {
    // T0 is a Sunday, 12:00 UTC.
    api.clock.set(T0);
    const store = await newStore(api);
    await paidOrder(api, store.key, PRICE);
    const nextMonday = epoch(T0) + DAY / 2;
    expect(await balanceOf(api, store.key)).toMatchObject({ payout_schedule: 'weekly', next_payout_at: nextMonday });
    // Monday passes while the payment is held: nothing to pay out, and that Monday is done.
    await advanceClock(api, store.key, DAY);
    expect((await listOf(api, '/api/v1/payouts', store.key)).body.data).toEqual([]);
    await advanceClock(api, store.key, 5 * DAY);
    expect((await listOf(api, '/api/v1/payouts', store.key)).body.data).toEqual([]);
    // The next Monday: one payout.
    await advanceClock(api, store.key, 2 * DAY);
    let listed = (await listOf(api, '/api/v1/payouts', store.key)).body.data;
    expect(listed).toEqual([expect.objectContaining({ amount: NET, status: 'paid', created: nextMonday + 7 * DAY + DAY / 2 })]);
    expect(await balanceOf(api, store.key)).toMatchObject({ available: 0, next_payout_at: nextMonday + 14 * DAY });

    // Three Mondays at once: one payout.
    await paidOrder(api, store.key, PRICE);
    await paidOrder(api, store.key, PRICE);
    await advanceClock(api, store.key, 21 * DAY);
    listed = (await listOf(api, '/api/v1/payouts', store.key)).body.data;
    expect(listed.map((payout: { amount: number }) => payout.amount)).toEqual([2 * NET, NET]);
    await advanceClock(api, store.key, 60);
    expect((await listOf(api, '/api/v1/payouts', store.key)).body.data).toHaveLength(2);

    // Filters.
    expect((await listOf(api, '/api/v1/payouts', store.key, 'status=paid')).body.data).toEqual(listed);
    expect((await listOf(api, '/api/v1/payouts', store.key, 'status=failed')).body.data).toEqual([]);
    expect((await listOf(api, '/api/v1/payouts', store.key, `created_gte=${listed[0].created}`)).body.data).toEqual([listed[0]]);
    expect((await listOf(api, '/api/v1/payouts', store.key, `created_lte=${listed[1].created}`)).body.data).toEqual([listed[1]]);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true, checked: { payouts: 2 } });
  });

  it('monthly: the 1st, 00:00 UTC', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    await api.services.db.update(stores).set({ payoutScheduleTest: 'monthly' }).where(eq(stores.id, store.id));
    expect(await balanceOf(api, store.key)).toMatchObject({ payout_schedule: 'monthly', next_payout_at: epoch(new Date('2026-04-01T00:00:00Z')) });
  });

  it('concurrent passes make one payout per store, environment and date', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    await paidOrder(api, store.key, PRICE);
    // The test clock moved past a Monday without advance_clock's own pass.
    await api.services.db
      .update(stores)
      .set({ testClockOffsetSeconds: 8 * DAY })
      .where(eq(stores.id, store.id));
    const scope = { storeId: store.id, livemode: false };
    const made = await Promise.all(Array.from({ length: 6 }, () => runScheduledPayouts(api.services, scope)));
    expect(made.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(await api.services.db.select().from(payouts).where(eq(payouts.storeId, store.id))).toHaveLength(1);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });
});

describe('reading payouts', () => {
  it('an unknown id, one of another store and one of the other environment answer the identical 404', async () => {
    api.clock.set(T0);
    const store = await manualStore();
    const other = await newStore(api);
    await paidOrder(api, store.key, PRICE);
    await advanceClock(api, store.key, HOLD);
    const payout = (await createPayout(store.key)).body;
    expect((await api.request('GET', `/api/v1/payouts/${payout.id}`, { key: store.key })).body).toEqual(payout);
    for (const path of [`/api/v1/payouts/${payout.id}`, `/api/v1/payouts/${payout.id}/balance_transactions`]) {
      const unknown = path.replace(payout.id, 'po_test_AAAAAAAAAAAAAAAAAAAAAAAA');
      expectIdenticalMissing([await rawApiRequest(api, 'GET', unknown, store.key), await rawApiRequest(api, 'GET', path, other.key), await rawApiRequest(api, 'GET', path, store.liveKey)], 'id');
    }
    expect((await listOf(api, '/api/v1/payouts', other.key)).body.data).toEqual([]);
    expect((await listOf(api, '/api/v1/payouts', store.liveKey)).body.data).toEqual([]);
  });

  it('ledger:verify names a payout whose entries or settlements were tampered with', async () => {
    api.clock.set(T0);
    const store = await manualStore();
    await paidOrder(api, store.key, PRICE);
    await advanceClock(api, store.key, HOLD);
    const payout = (await createPayout(store.key)).body;
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
    const now = api.clock.now();
    await api.services.db.insert(balanceTransactions).values({
      id: 'btx_test_DDDDDDDDDDDDDDDDDDDDDDDD',
      storeId: store.id,
      livemode: false,
      type: 'payout_cancel',
      amount: payout.amount,
      sourceType: 'payout',
      sourceId: payout.id,
      description: 'stray',
      createdAt: now,
      availableOn: now,
    });
    const verification = await verifyLedger(api.services.db, api.clock.now(), store.id);
    expect(verification.ok).toBe(false);
    if (verification.ok) return;
    expect(verification.mismatches.map((mismatch) => [mismatch.check, mismatch.object_id])).toEqual([
      ['payout_entries', payout.id],
      ['balance', store.id],
    ]);
    expect(verification.mismatches[0]).toMatchObject({ expected: { payout_cancel: [] }, actual: { payout_cancel: [payout.amount] } });
    // What a payout settled stays recorded.
    await expect(api.services.db.execute(sql`delete from payout_settlements where payout_id = ${payout.id}`)).rejects.toThrow();
  });
});
