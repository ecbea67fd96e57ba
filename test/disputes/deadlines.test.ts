import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { balanceTransactions, disputes, stores } from '@/db/schema';
import { OPERATOR } from '@/server/audit/service';
import { verifyLedger } from '@/server/balance/verify';
import { runDisputeDeadlines } from '@/server/disputes/jobs';
import { createDispute } from '@/server/disputes/service';
import { LOST_DISPUTE_EFFECTS } from '@/server/subscriptions/service';
import { DAY } from '../billing/support';
import { storeWithTeam } from '../bank-accounts/support';
import { epoch, T0 } from '../support/api';
import { useTestApi } from '../support/server';
import { eventsOf } from '../subscriptions/support';
import { DISPUTE_CARDS, DISPUTES, disputeOf, paidOrder, paidWith, useSimulatedAcquirer } from './support';

/**
 * The deadline pass as the background runs it, over every store: live disputes are submitted or
 * lost, then wait for the operator; test mode is decided on each store's own clock; each dispute
 * is decided once however many passes run at once. And `ledger:verify` tells a dispute's entries
 * that do not follow from it.
 */
const api = useTestApi();
useSimulatedAcquirer(api);

const pass = () => runDisputeDeadlines(api.services, LOST_DISPUTE_EFFECTS);

/** A live order of a store with its dispute opened by the operator at T0, as `disputes:create` does. */
async function liveDispute(name: string) {
  api.clock.set(T0);
  const store = await storeWithTeam(api, { name, taxCalculation: true });
  const order = await paidOrder(api, store.liveKey);
  const times = { now: T0, wallNow: T0 };
  const opened = await createDispute(api.services.db, { storeId: store.id, livemode: true }, order.id, { reason: 'general' }, { fee: 1500, times, actor: OPERATOR });
  return { store, order, id: opened.id };
}

const read = async (key: string, id: string) => (await api.request('GET', `${DISPUTES}/${id}`, { key })).body;

describe('the deadline pass', () => {
  it('live: saved evidence is submitted at the deadline and then waits for the operator; none loses; nothing before the deadline', async () => {
    const answered = await liveDispute('Answered Live');
    const silent = await liveDispute('Silent Live');
    const saved = await api.request('POST', `${DISPUTES}/${answered.id}`, { key: answered.store.liveKey, body: { evidence: { product_description: 'Delivered by download.' } } });
    expect(saved.status).toBe(200);

    api.clock.set(new Date(T0.getTime() + 7 * DAY * 1000 - 1000));
    await pass();
    expect(await read(answered.store.liveKey, answered.id)).toMatchObject({ status: 'needs_response', evidence_submitted_at: null });
    expect(await read(silent.store.liveKey, silent.id)).toMatchObject({ status: 'needs_response' });

    api.clock.set(new Date(T0.getTime() + 7 * DAY * 1000));
    await pass();
    const submitted = await read(answered.store.liveKey, answered.id);
    expect(submitted).toMatchObject({ status: 'under_review', evidence_submitted_at: epoch(T0) + 7 * DAY, evidence: { product_description: 'Delivered by download.' } });
    expect(await read(silent.store.liveKey, silent.id)).toMatchObject({ status: 'lost', evidence_submitted_at: null });
    const [row] = await api.services.db.select().from(disputes).where(eq(disputes.id, silent.id));
    expect(row!.closedAt).toEqual(new Date(T0.getTime() + 7 * DAY * 1000));

    // A live dispute under review is the acquirer's to decide: later passes leave it.
    api.clock.set(new Date(T0.getTime() + 30 * DAY * 1000));
    await pass();
    expect(await read(answered.store.liveKey, answered.id)).toEqual(submitted);
    expect((await eventsOf(api.services.db, answered.id)).map((event) => [event.type, event.data.object.status])).toEqual([
      ['dispute.created', 'needs_response'],
      ['dispute.updated', 'needs_response'],
      ['dispute.updated', 'under_review'],
    ]);
    for (const store of [answered.store, silent.store]) expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });

  it('test mode on each store’s own clock; passes running at once decide each dispute once', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Racing Passes', taxCalculation: true });
    const order = await paidWith(api, store.key, DISPUTE_CARDS.fraudulent);
    const dispute = await disputeOf(api, store.key, order.id);
    api.clock.set(new Date(T0.getTime() + 3600_000));
    await pass();
    expect((await read(store.key, dispute.id)).status).toBe('needs_response');
    // The store's test clock runs a week ahead of the wall clock (moved without advance_clock's own pass): due on it.
    await api.services.db
      .update(stores)
      .set({ testClockOffsetSeconds: 7 * DAY })
      .where(eq(stores.id, store.id));
    await Promise.all([pass(), pass(), pass()]);
    expect((await read(store.key, dispute.id)).status).toBe('lost');
    expect((await eventsOf(api.services.db, dispute.id)).map((event) => event.type)).toEqual(['dispute.created', 'dispute.closed']);
    const notes = (await api.request('GET', `/api/v1/credit_notes?order_id=${order.id}`, { key: store.key })).body.data;
    expect(notes).toHaveLength(1);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });
});

describe('ledger:verify and disputes', () => {
  it('reports dispute_entries when a dispute’s entries do not follow from it, and counts disputes', async () => {
    const { store, id } = await liveDispute('Tampered Dispute');
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toEqual(expect.objectContaining({ ok: true, checked: expect.objectContaining({ disputes: 1 }) }));
    // A reversal the dispute never had (it is open).
    await api.services.db.insert(balanceTransactions).values({
      id: 'btx_live_TamperedDisputeReversal00',
      storeId: store.id,
      livemode: true,
      type: 'dispute_reversal',
      amount: 1190,
      sourceType: 'dispute',
      sourceId: id,
      description: `Dispute won ${id}`,
      createdAt: T0,
      availableOn: T0,
    });
    const verification = await verifyLedger(api.services.db, api.clock.now(), store.id);
    expect(verification.ok).toBe(false);
    expect(!verification.ok && verification.mismatches).toEqual([
      {
        check: 'dispute_entries',
        store: store.id,
        livemode: true,
        object_id: id,
        expected: { dispute: [-1190], tax: [190], dispute_fee: [-1500], dispute_reversal: [], credited: 0 },
        actual: { dispute: [-1190], tax: [190], dispute_fee: [-1500], dispute_reversal: [1190], credited: 0 },
      },
      expect.objectContaining({ check: 'balance', store: store.id, livemode: true }),
    ]);
  });
});
