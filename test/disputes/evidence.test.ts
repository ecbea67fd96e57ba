import { describe, expect, it } from 'vitest';
import { verifyLedger } from '@/server/balance/verify';
import { openDispute } from '@/server/disputes/service';
import { advanceClock, DAY } from '../billing/support';
import { seedOrder } from '../portal/factories';
import { epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { describeListContract, listOf, type Store } from '../support/lists';
import { useTestApi } from '../support/server';
import { eventsOf } from '../subscriptions/support';
import { DISPUTE_CARDS, DISPUTES, disputeOf, paidOrder, paidWith, useSimulatedAcquirer } from './support';

/** Disputes through the API: evidence saved and submitted, the deadline, the outcome test mode decides, the list and its tenancy. */
const api = useTestApi();
useSimulatedAcquirer(api);

const keyOf = (store: Store, livemode: boolean) => (livemode ? store.keys.sk_live : store.keys.sk_test);
const NO_EVIDENCE = { customer_communication: null, product_description: null, uncategorized_text: null };

/** A paid order written to the tables and disputed by the service at the clock's now: the dispute as the API reads it. */
async function seededDispute(store: Store, options: { livemode?: boolean; reason?: 'fraudulent' | 'duplicate' } = {}) {
  const livemode = options.livemode ?? false;
  const order = await seedOrder({ db: api.services.db, now: api.clock.now() }, store, { livemode });
  const scope = { storeId: store.id, livemode };
  const times = { now: api.clock.now(), wallNow: api.clock.now() };
  const row = await api.services.db.transaction((tx) => openDispute(tx, scope, order.id, { reason: options.reason ?? 'fraudulent' }, { fee: 1500, times }));
  const read = await api.request('GET', `${DISPUTES}/${row.id}`, { key: keyOf(store, livemode) });
  expect(read.status).toBe(200);
  return read.body;
}

describeListContract(api, { path: DISPUTES, make: (store, { livemode }) => seededDispute(store, { livemode }) });

/** A test-mode dispute of a hosted payment with the fraudulent card, in a store of its own. */
async function disputedPayment() {
  api.clock.set(T0);
  const store = await createStore(api.services, { taxCalculation: true });
  const order = await paidWith(api, store.keys.sk_test, DISPUTE_CARDS.fraudulent);
  return { store, key: store.keys.sk_test, order, dispute: await disputeOf(api, store.keys.sk_test, order.id) };
}

const update = (key: string, id: string, body: unknown) => api.request('POST', `${DISPUTES}/${id}`, { key, body });

describe('POST /api/v1/disputes/{id}: evidence', () => {
  it('a field sent replaces the stored one, null clears it, one left out stays; each change is dispute.updated with previous_attributes; nothing to change records nothing', async () => {
    const { key, dispute } = await disputedPayment();
    const first = await update(key, dispute.id, { evidence: { customer_communication: 'Mail of March 2', product_description: 'An e-book, downloaded' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ...dispute, evidence: { customer_communication: 'Mail of March 2', product_description: 'An e-book, downloaded', uncategorized_text: null } });
    const cleared = await update(key, dispute.id, { evidence: { customer_communication: null, uncategorized_text: 'Delivered by e-mail' } });
    expect(cleared.body.evidence).toEqual({ customer_communication: null, product_description: 'An e-book, downloaded', uncategorized_text: 'Delivered by e-mail' });
    expect((await update(key, dispute.id, {})).body).toEqual(cleared.body);
    expect((await update(key, dispute.id, { evidence: { product_description: 'An e-book, downloaded' } })).body).toEqual(cleared.body);
    expect((await api.request('GET', `${DISPUTES}/${dispute.id}`, { key })).body).toEqual(cleared.body);

    const events = await eventsOf(api.services.db, dispute.id);
    expect(events.map((event) => event.type)).toEqual(['dispute.created', 'dispute.updated', 'dispute.updated']);
    expect(events[1]!.data).toEqual({ object: first.body, previous_attributes: { evidence: NO_EVIDENCE } });
    expect(events[2]!.data).toEqual({ object: cleared.body, previous_attributes: { evidence: first.body.evidence } });
  });

  it('submit sends the evidence as it stands for review; afterwards neither evidence nor a second submit is taken (409 dispute_not_editable)', async () => {
    const { key, dispute } = await disputedPayment();
    api.clock.set(new Date(T0.getTime() + 3600_000));
    const submitted = await update(key, dispute.id, { evidence: { product_description: 'Downloaded twice' }, submit: true });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toEqual({
      ...dispute,
      status: 'under_review',
      evidence: { ...NO_EVIDENCE, product_description: 'Downloaded twice' },
      evidence_submitted_at: epoch(T0) + 3600,
    });
    const [, updated] = await eventsOf(api.services.db, dispute.id);
    expect(updated!.data.previous_attributes).toEqual({ status: 'needs_response', evidence: NO_EVIDENCE, evidence_submitted_at: null });
    expectError(await update(key, dispute.id, { evidence: { uncategorized_text: 'More' } }), 409, 'dispute_not_editable');
    expectError(await update(key, dispute.id, { submit: true }), 409, 'dispute_not_editable');
    expect((await api.request('GET', `${DISPUTES}/${dispute.id}`, { key })).body).toEqual(submitted.body);
  });

  it('submitting with every field null is 400 parameter_invalid on evidence, also when the request clears the last one; nothing changes', async () => {
    const { key, dispute } = await disputedPayment();
    expectError(await update(key, dispute.id, { submit: true }), 400, 'parameter_invalid', 'evidence');
    expect((await update(key, dispute.id, { evidence: { uncategorized_text: 'Kept' } })).status).toBe(200);
    expectError(await update(key, dispute.id, { evidence: { uncategorized_text: null }, submit: true }), 400, 'parameter_invalid', 'evidence');
    expect((await api.request('GET', `${DISPUTES}/${dispute.id}`, { key })).body).toMatchObject({ status: 'needs_response', evidence: { ...NO_EVIDENCE, uncategorized_text: 'Kept' } });
  });

  it('an evidence field holds 20,000 characters; 20,001 is 400 parameter_invalid naming it', async () => {
    const { key, dispute } = await disputedPayment();
    const longest = await update(key, dispute.id, { evidence: { customer_communication: 'x'.repeat(20_000) } });
    expect(longest.status).toBe(200);
    expect(longest.body.evidence.customer_communication).toHaveLength(20_000);
    const tooLong = await update(key, dispute.id, { evidence: { customer_communication: 'y'.repeat(20_001) } });
    expectError(tooLong, 400, 'parameter_invalid', 'evidence.customer_communication');
    expect((await api.request('GET', `${DISPUTES}/${dispute.id}`, { key })).body.evidence.customer_communication).toBe('x'.repeat(20_000));
  });

  it('from evidence_due_by on, on the store’s clock, the evidence can no longer change: 409 dispute_not_editable', async () => {
    const { key, dispute } = await disputedPayment();
    // The wall clock moves, the deadline pass does not run: the dispute is still needs_response.
    api.clock.set(new Date((dispute.evidence_due_by - 1) * 1000));
    expect((await update(key, dispute.id, { evidence: { product_description: 'In time' } })).status).toBe(200);
    api.clock.set(new Date(dispute.evidence_due_by * 1000));
    const late = await update(key, dispute.id, { evidence: { product_description: 'Too late' } });
    expectError(late, 409, 'dispute_not_editable');
    expect(late.body.error.message).toBe(`The deadline of dispute ${dispute.id} has passed: its evidence can no longer change.`);
    expectError(await update(key, dispute.id, { submit: true }), 409, 'dispute_not_editable');
    expect((await api.request('GET', `${DISPUTES}/${dispute.id}`, { key })).body).toMatchObject({ status: 'needs_response', evidence: { product_description: 'In time' } });
  });
});

describe('test mode decides at the deadline', () => {
  it('submitted evidence with winning_evidence: won when the test clock passes the deadline; dispute.closed carries previous_attributes', async () => {
    const { store, key, dispute } = await disputedPayment();
    const submitted = (await update(key, dispute.id, { evidence: { product_description: 'winning_evidence: the download log' }, submit: true })).body;
    await advanceClock(api, key, 7 * DAY - 1);
    expect((await api.request('GET', `${DISPUTES}/${dispute.id}`, { key })).body.status).toBe('under_review');
    await advanceClock(api, key, 1);
    const won = (await api.request('GET', `${DISPUTES}/${dispute.id}`, { key })).body;
    expect(won).toEqual({ ...submitted, status: 'won' });
    const closed = (await eventsOf(api.services.db, dispute.id)).at(-1)!;
    expect(closed).toMatchObject({ type: 'dispute.closed', created: epoch(T0) + 7 * DAY, data: { object: won, previous_attributes: { status: 'under_review' } } });
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });

  it('losing_evidence beside winning_evidence loses, as does evidence with neither', async () => {
    const both = await disputedPayment();
    await update(both.key, both.dispute.id, { evidence: { product_description: 'winning_evidence', uncategorized_text: 'losing_evidence' } });
    const neither = await disputedPayment();
    await update(neither.key, neither.dispute.id, { evidence: { customer_communication: 'We wrote twice.' } });
    for (const { store, key, dispute } of [both, neither]) {
      await advanceClock(api, key, 7 * DAY);
      const lost = (await api.request('GET', `${DISPUTES}/${dispute.id}`, { key })).body;
      expect(lost).toMatchObject({ status: 'lost', evidence_submitted_at: dispute.evidence_due_by });
      expect((await eventsOf(api.services.db, dispute.id)).map((event) => [event.type, event.data.previous_attributes?.status])).toEqual([
        ['dispute.created', undefined],
        ['dispute.updated', undefined],
        ['dispute.updated', 'needs_response'],
        ['dispute.closed', 'under_review'],
      ]);
      expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
    }
  });
});

describe('GET /api/v1/disputes: filters and tenancy', () => {
  it('status, order_id and the created range filter; a malformed order_id or status is 400 naming it', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services);
    const older = await seededDispute(store);
    api.clock.set(new Date(T0.getTime() + 60_000));
    const newer = await seededDispute(store, { reason: 'duplicate' });
    const submitted = (await update(store.keys.sk_test, newer.id, { evidence: { uncategorized_text: 'Proof' }, submit: true })).body;
    const list = async (query: string) => (await listOf(api, DISPUTES, store.keys.sk_test, query)).body.data;
    expect(await list('status=under_review')).toEqual([submitted]);
    expect(await list('status=needs_response')).toEqual([older]);
    expect(await list('status=won')).toEqual([]);
    expect(await list(`order_id=${older.order_id}`)).toEqual([older]);
    expect(await list(`created_gte=${epoch(T0) + 60}`)).toEqual([submitted]);
    expect(await list(`created_lte=${epoch(T0) + 59}`)).toEqual([older]);
    expect(await list(`created_gte=${epoch(T0)}&created_lte=${epoch(T0) + 60}&status=needs_response`)).toEqual([older]);
    expectError(await listOf(api, DISPUTES, store.keys.sk_test, 'status=open'), 400, 'parameter_invalid', 'status');
    expectError(await listOf(api, DISPUTES, store.keys.sk_test, 'order_id=dp_test_1'), 400, 'parameter_invalid', 'order_id');
  });

  it('a dispute of another store, of the other environment and an unknown id answer the identical 404, read or updated; lists never show them', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services, { taxCalculation: true });
    const other = await createStore(api.services, { taxCalculation: true });
    const own = await seededDispute(store);
    const foreign = await seededDispute(other);
    // A live dispute of the store, of an order paid on the hosted page.
    const liveOrder = await paidOrder(api, store.keys.sk_live);
    const live = await api.services.db.transaction((tx) =>
      openDispute(tx, { storeId: store.id, livemode: true }, liveOrder.id, { reason: 'general' }, { fee: 1500, times: { now: api.clock.now(), wallNow: api.clock.now() } }),
    );
    const unknown = `${foreign.id.slice(0, -4)}zzzz`;
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', { evidence: { uncategorized_text: 'Not yours' } }],
    ] as const) {
      const responses = await Promise.all([unknown, foreign.id, live.id].map((id) => rawApiRequest(api, method, `${DISPUTES}/${id}`, store.keys.sk_test, body)));
      expectIdenticalMissing(responses, 'id');
    }
    expectError(await api.request('GET', `${DISPUTES}/${own.id}`, { key: store.keys.sk_live }), 404, 'resource_missing', 'id');
    expect((await listOf(api, DISPUTES, store.keys.sk_test)).body.data).toEqual([own]);
    const liveView = (await api.request('GET', `${DISPUTES}/${live.id}`, { key: store.keys.sk_live })).body;
    expect(liveView).toMatchObject({ id: live.id, livemode: true, evidence: NO_EVIDENCE });
    expect((await listOf(api, DISPUTES, store.keys.sk_live)).body.data).toEqual([liveView]);
    expect((await listOf(api, DISPUTES, other.keys.sk_test)).body.data).toEqual([foreign]);
    expect((await listOf(api, DISPUTES, other.keys.sk_live)).body.data).toEqual([]);
    expect((await listOf(api, DISPUTES, store.keys.sk_test, `order_id=${foreign.order_id}`)).body.data).toEqual([]);
    // Nothing was written to the others' disputes.
    expect((await api.request('GET', `${DISPUTES}/${foreign.id}`, { key: other.keys.sk_test })).body).toEqual(foreign);
  });
});
