import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { balanceTransactions } from '@/db/schema';
import { OPERATOR } from '@/server/audit/service';
import { verifyLedger } from '@/server/balance/verify';
import { GatewayRejectedError, type PaymentGateway } from '@/server/gateway/types';
import { createRefund } from '@/server/orders/refunds/service';
import { updateStore } from '@/server/stores/service';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { createProduct, epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { allPages, listOf } from '../support/lists';
import { useTestApi } from '../support/server';
import { createSubscription } from '../support/subscriptions';
import { advanceClock, DAY } from '../billing/support';
import { createSession, submitCheckout } from '../invoices/support';
import { subscribe } from '../subscriptions/support';
import { balanceOf, entriesOf, newStore, paidOrder } from './support';

/** The ledger of section "the merchant's money": entries written with their causes, and the balance that sums them. */
const api = useTestApi({ subscriptionsEnabled: true });

const ENTRIES = '/api/v1/balance_transactions';
const ENTRY_ID = /^btx_test_[0-9A-Za-z]{24}$/;
const HOLD = 7 * DAY;

const refund = (key: string, body: Record<string, unknown>) => api.request('POST', '/api/v1/refunds', { key, body });

describe('entries of a payment', () => {
  it('a purchase writes payment, tax and fee with its invoice, listed fee, tax, payment; the fee’s half cent rounds up', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const { order, invoice } = await paidOrder(api, store.key);
    expect(order).toMatchObject({ amount_total: 1190, amount_tax: 190 });
    const entries = await entriesOf(api, store.key, order.id);
    const common = {
      object: 'balance_transaction',
      currency: 'eur',
      source: { type: 'order', id: order.id },
      created: epoch(T0),
      available_on: epoch(T0) + HOLD,
      status: 'pending',
      payout_id: null,
      livemode: false,
    };
    // 5% of 11.90 EUR is 59.5 cents: 60, plus 0.50 EUR.
    expect(entries).toEqual([
      { id: expect.stringMatching(ENTRY_ID), ...common, type: 'fee', amount: -110, description: `Fee 5% + 0.50 EUR on ${invoice.number}` },
      { id: expect.stringMatching(ENTRY_ID), ...common, type: 'tax', amount: -190, description: `VAT ${invoice.number}` },
      { id: expect.stringMatching(ENTRY_ID), ...common, type: 'payment', amount: 1190, description: `Payment ${invoice.number}` },
    ]);
    for (const entry of entries) expect((await api.request('GET', `${ENTRIES}/${entry.id}`, { key: store.key })).body).toEqual(entry);
  });

  it('the store’s rates at payment, formatted as they read; the fee never exceeds what is left after VAT', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    await updateStore(api.services.db, store.id, { feeBasisPoints: 250, feeFixed: 0 });
    const { order, invoice } = await paidOrder(api, store.key, 1999);
    // 2.5% of 23.79 EUR = 59.475 cents: 59.
    expect((await entriesOf(api, store.key, order.id))[0]).toMatchObject({ type: 'fee', amount: -59, description: `Fee 2.5% + 0.00 EUR on ${invoice.number}` });

    // 50% of 1.19 EUR (59.5 → 60 cents) + 0.50 EUR is more than the 1.00 EUR net: the fee is the net.
    await updateStore(api.services.db, store.id, { feeBasisPoints: 5000, feeFixed: 50 });
    const capped = await paidOrder(api, store.key, 100);
    expect((await entriesOf(api, store.key, capped.order.id)).map((entry: { type: string; amount: number; description: string }) => [entry.type, entry.amount, entry.description])).toEqual([
      ['fee', -100, `Fee 50% + 0.50 EUR on ${capped.invoice.number}`],
      ['tax', -19, `VAT ${capped.invoice.number}`],
      ['payment', 119, `Payment ${capped.invoice.number}`],
    ]);
    // Rates set later change nothing already written; the first order keeps its fee.
    expect((await entriesOf(api, store.key, order.id))[0].amount).toBe(-59);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });

  it('a subscription’s first charge and its renewal each write their three entries at the store’s clock', async () => {
    api.clock.set(T0);
    const store = await newStore(api, { subscriptions: true, taxCalculation: false });
    const subscribed = await subscribe(api, store.key);
    const [first] = (await listOf(api, '/api/v1/orders', store.key, `subscription_id=${subscribed.subscription.id}`)).body.data;
    expect(first).toMatchObject({ billing_reason: 'subscription_create', amount_total: 990 });
    const firstInvoice = (await api.request('GET', `/api/v1/invoices/${first.invoice_id}`, { key: store.key })).body;
    expect((await entriesOf(api, store.key, first.id)).map((entry: Record<string, unknown>) => [entry.type, entry.amount, entry.description, entry.created])).toEqual([
      ['fee', -100, `Fee 5% + 0.50 EUR on ${firstInvoice.number}`, epoch(T0)],
      ['tax', 0, `VAT ${firstInvoice.number}`, epoch(T0)],
      ['payment', 990, `Payment ${firstInvoice.number}`, epoch(T0)],
    ]);

    const subscription = await createSubscription(api.services, store.id);
    const renewalAt = periodBoundary(T0, 'month', 1, 1);
    await advanceClock(api, store.key, epoch(renewalAt) - epoch(T0));
    const orders = (await listOf(api, '/api/v1/orders', store.key, `subscription_id=${subscription.id}&billing_reason=subscription_cycle`)).body.data;
    expect(orders).toHaveLength(1);
    const invoice = (await api.request('GET', `/api/v1/invoices/${orders[0].invoice_id}`, { key: store.key })).body;
    const entries = await entriesOf(api, store.key, orders[0].id);
    expect(entries.map((entry: Record<string, unknown>) => [entry.type, entry.amount, entry.description, entry.created, entry.available_on, entry.status])).toEqual([
      // 5% of 9.90 EUR is 49.5 cents: 50, plus 0.50 EUR.
      ['fee', -100, `Fee 5% + 0.50 EUR on ${invoice.number}`, epoch(renewalAt), epoch(renewalAt) + HOLD, 'pending'],
      ['tax', 0, `VAT ${invoice.number}`, epoch(renewalAt), epoch(renewalAt) + HOLD, 'pending'],
      ['payment', 990, `Payment ${invoice.number}`, epoch(renewalAt), epoch(renewalAt) + HOLD, 'pending'],
    ]);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });

  it('a declined payment writes nothing', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const product = await createProduct(api, store.key, { amount: 1000, tax_rate: 19 });
    const session = await createSession(api, store.key, { price_id: product.price_id, customer_email: 'buyer@example.com' });
    await submitCheckout(api, session, { card_number: '4000 0000 0000 0002' });
    expect((await api.request('GET', `/api/v1/orders/${session.order_id}`, { key: store.key })).body.status).toBe('pending');
    expect(await entriesOf(api, store.key, session.order_id)).toEqual([]);
    expect(await balanceOf(api, store.key)).toMatchObject({ available: 0, pending: 0 });
  });
});

describe('entries of a refund and the balance', () => {
  it('a partial then a full refund write refund and tax from their credit notes, available at once; the balance follows the test clock', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const { order } = await paidOrder(api, store.key);
    // Sunday 2026-03-01 12:00 UTC: the next weekly payout is Monday 00:00 UTC.
    expect(await balanceOf(api, store.key)).toEqual({
      object: 'balance',
      available: 0,
      pending: 890,
      currency: 'eur',
      livemode: false,
      payout_schedule: 'weekly',
      next_payout_at: epoch(new Date('2026-03-02T00:00:00Z')),
      payout_hold: null,
    });

    await advanceClock(api, store.key, 60);
    const partial = await refund(store.key, { order_id: order.id, amount: 500 });
    expect(partial.status).toBe(201);
    const note = (await api.request('GET', `/api/v1/credit_notes/${partial.body.credit_note_id}`, { key: store.key })).body;
    const at = epoch(T0) + 60;
    const common = {
      object: 'balance_transaction',
      currency: 'eur',
      source: { type: 'refund', id: partial.body.id },
      created: at,
      available_on: at,
      status: 'available',
      payout_id: null,
      livemode: false,
    };
    expect(await entriesOf(api, store.key, partial.body.id)).toEqual([
      { id: expect.stringMatching(ENTRY_ID), ...common, type: 'tax', amount: note.amount_tax, description: `VAT ${note.number}` },
      { id: expect.stringMatching(ENTRY_ID), ...common, type: 'refund', amount: -500, description: `Refund ${note.number}` },
    ]);
    expect(note.amount_tax).toBe(80);
    // A refund lowers what can be paid out at once, below zero while the payment is held.
    expect(await balanceOf(api, store.key)).toMatchObject({ available: -420, pending: 890 });

    const rest = await refund(store.key, { order_id: order.id });
    const restNote = (await api.request('GET', `/api/v1/credit_notes/${rest.body.credit_note_id}`, { key: store.key })).body;
    expect((await entriesOf(api, store.key, rest.body.id)).map((entry: { type: string; amount: number }) => [entry.type, entry.amount])).toEqual([
      ['tax', 110],
      ['refund', -690],
    ]);
    expect(restNote).toMatchObject({ amount_total: 690, amount_tax: 110 });
    // The fee is not returned: what is left is minus the fee.
    expect(await balanceOf(api, store.key)).toMatchObject({ available: -420 - 580, pending: 890 });

    await advanceClock(api, store.key, HOLD - 60 - 1);
    expect(await balanceOf(api, store.key)).toMatchObject({ available: -1000, pending: 890 });
    await advanceClock(api, store.key, 1);
    expect(await balanceOf(api, store.key)).toMatchObject({ available: -110, pending: 0, next_payout_at: epoch(new Date('2026-03-09T00:00:00Z')) });
    expect((await entriesOf(api, store.key, order.id)).map((entry: { status: string }) => entry.status)).toEqual(['available', 'available', 'available']);
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toEqual({
      ok: true,
      checked: { stores: 1, orders: 1, refunds: 2, disputes: 0, payouts: 0, balance_transactions: 7 },
    });
  });

  it('a failed refund writes nothing', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const { order } = await paidOrder(api, store.key);
    const simulator = api.services.gateways.test;
    const refusing: PaymentGateway = { ...simulator, refund: async () => Promise.reject(new GatewayRejectedError('refused')) };
    const failed = await createRefund(
      { db: api.services.db, clock: api.clock, wallClock: api.clock, gateway: refusing, actor: OPERATOR },
      { storeId: store.id, livemode: false },
      { order_id: order.id, amount: 500 },
    );
    expect(failed.status).toBe('failed');
    expect(await entriesOf(api, store.key, failed.id)).toEqual([]);
    expect(await balanceOf(api, store.key)).toMatchObject({ available: 0, pending: 890 });
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });

  it('live mode has its own, empty balance, held until a bank account is saved', async () => {
    const store = await newStore(api);
    await paidOrder(api, store.key);
    expect(await balanceOf(api, store.liveKey)).toMatchObject({
      available: 0,
      pending: 0,
      livemode: true,
      payout_hold: { reason: 'destination_missing', until: null },
    });
    expect((await listOf(api, ENTRIES, store.liveKey)).body).toEqual({ object: 'list', data: [], has_more: false, url: ENTRIES, livemode: true });
  });
});

describe('GET /balance_transactions', () => {
  it('filters by type, source, created and available_on; pages newest first in recording order', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const first = await paidOrder(api, store.key);
    api.clock.advance(100);
    const second = await paidOrder(api, store.key);
    const all = (await listOf(api, ENTRIES, store.key, 'limit=100')).body.data;
    expect(all.map((entry: { source: { id: string }; type: string }) => [entry.source.id, entry.type])).toEqual([
      [second.order.id, 'fee'],
      [second.order.id, 'tax'],
      [second.order.id, 'payment'],
      [first.order.id, 'fee'],
      [first.order.id, 'tax'],
      [first.order.id, 'payment'],
    ]);

    const pages = await allPages(api, ENTRIES, store.key, 'limit=4');
    expect(pages.map((page) => page.data.length)).toEqual([4, 2]);
    expect(pages.flatMap((page) => page.data)).toEqual(all);

    const ids = (query: string) => listOf(api, ENTRIES, store.key, query).then((response) => response.body.data.map((entry: { id: string }) => entry.id));
    expect(await ids('type=payment')).toEqual([all[2].id, all[5].id]);
    expect(await ids(`source_id=${first.order.id}&type=tax`)).toEqual([all[4].id]);
    expect(await ids(`created_gte=${epoch(T0) + 100}`)).toEqual(all.slice(0, 3).map((entry: { id: string }) => entry.id));
    expect(await ids(`created_lte=${epoch(T0) + 99}`)).toEqual(all.slice(3).map((entry: { id: string }) => entry.id));
    expect(await ids(`available_on_gte=${epoch(T0) + HOLD + 100}&available_on_lte=${epoch(T0) + HOLD + 100}`)).toEqual(all.slice(0, 3).map((entry: { id: string }) => entry.id));
    // Nothing is settled by a payout yet.
    expect(await ids('payout_id=po_test_AAAAAAAAAAAAAAAAAAAAAAAA')).toEqual([]);

    expectError(await listOf(api, ENTRIES, store.key, 'type=bonus'), 400, 'parameter_invalid', 'type');
    expectError(await listOf(api, ENTRIES, store.key, 'source_id=cus_test_AAAA'), 400, 'parameter_invalid', 'source_id');
    expectError(await listOf(api, ENTRIES, store.key, 'available_on_gte=soon'), 400, 'parameter_invalid', 'available_on_gte');
    expectError(await listOf(api, ENTRIES, store.key, 'limit=101'), 400, 'parameter_invalid', 'limit');
    expectError(await listOf(api, ENTRIES, store.key, 'starting_after=btx_test_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'resource_missing', 'starting_after');
  });

  it('an unknown id, one of another store and one of the other environment answer the identical 404', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const other = await newStore(api);
    const [entry] = await entriesOf(api, other.key, (await paidOrder(api, other.key)).order.id);
    const liveEntry = (
      await api.services.db
        .insert(balanceTransactions)
        .values({ id: 'btx_live_AAAAAAAAAAAAAAAAAAAAAAAA', storeId: store.id, livemode: true, type: 'adjustment', amount: 1, description: 'x', createdAt: T0, availableOn: T0 })
        .returning()
    )[0]!;
    const responses = await Promise.all(['btx_test_AAAAAAAAAAAAAAAAAAAAAAAA', entry.id, liveEntry.id].map((id) => rawApiRequest(api, 'GET', `${ENTRIES}/${id}`, store.key)));
    expectIdenticalMissing(responses, 'id');
    expect((await listOf(api, ENTRIES, store.key, `starting_after=${entry.id}`)).status).toBe(404);
    expect((await api.request('GET', `${ENTRIES}/${liveEntry.id}`, { key: store.liveKey })).status).toBe(200);
  });
});

describe('the ledger is append-only and verifiable', () => {
  it('the database refuses to change or delete an entry', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const [entry] = await entriesOf(api, store.key, (await paidOrder(api, store.key)).order.id);
    const refusal = { cause: expect.objectContaining({ message: 'balance_transactions rows are immutable: record a correcting entry instead' }) };
    await expect(api.services.db.execute(sql`update balance_transactions set amount = 0 where id = ${entry.id}`)).rejects.toMatchObject(refusal);
    await expect(api.services.db.execute(sql`delete from balance_transactions where id = ${entry.id}`)).rejects.toMatchObject(refusal);
    expect((await api.request('GET', `${ENTRIES}/${entry.id}`, { key: store.key })).body).toEqual(entry);
  });

  it('an order’s entries cannot be written twice, and a stray entry is named by verify', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const { order } = await paidOrder(api, store.key);
    const stray = { storeId: store.id, livemode: false, sourceType: 'order' as const, sourceId: order.id, description: 'stray', createdAt: T0, availableOn: T0 };
    await expect(api.services.db.insert(balanceTransactions).values({ ...stray, id: 'btx_test_BBBBBBBBBBBBBBBBBBBBBBBB', type: 'fee', amount: -1 })).rejects.toThrow();
    await api.services.db.insert(balanceTransactions).values({ ...stray, id: 'btx_test_CCCCCCCCCCCCCCCCCCCCCCCC', type: 'refund', amount: -1 });
    const verification = await verifyLedger(api.services.db, api.clock.now(), store.id);
    expect(verification).toEqual({
      ok: false,
      checked: { stores: 1, orders: 1, refunds: 0, disputes: 0, payouts: 0, balance_transactions: 4 },
      mismatches: [
        {
          check: 'order_entries',
          store: store.id,
          livemode: false,
          object_id: order.id,
          expected: { payment: [1190], tax: [-190], fee: [-110] },
          actual: { payment: [1190], tax: [-190], fee: [-110], other: [-1] },
        },
        { check: 'balance', store: store.id, livemode: false, object_id: store.id, expected: { total: 890, available: -1 }, actual: { total: 889, available: -1, pending: 890 } },
      ],
    });
  });
});
