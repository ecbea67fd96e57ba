import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { readBalanceTransactionsQuery } from '@/app/dashboard/balance/query';
import { payouts, stores } from '@/db/schema';
import { newBalanceTransactionId, recordAdjustment } from '@/server/balance/ledger';
import { csvField, exportBalanceTransactionsCsv } from '@/server/dashboard/csv';
import { scopeClock } from '@/server/dashboard/service';
import { createPayout } from '@/server/payouts/service';
import { T0 } from '../support/api';
import { actingAs, formKey, person } from '../support/dashboard';
import { useTestApi } from '../support/server';
import { advanceClock, DAY } from '../billing/support';
import { newStore, paidOrder } from '../balance/support';

/** The Balance page's list query, its CSV export and its Pay out now, through the services the pages call. */
const api = useTestApi();

const test = (store: { id: string }) => ({ storeId: store.id, livemode: false });

async function csvOf(store: { id: string }, query: Record<string, string> = {}, livemode = false, pageSize?: number) {
  const scope = { storeId: store.id, livemode };
  const { filters, problem } = readBalanceTransactionsQuery(query);
  expect(problem).toBeUndefined();
  const chunks: string[] = [];
  for await (const chunk of exportBalanceTransactionsCsv({ db: api.services.db, clock: await scopeClock(api.services, scope) }, scope, filters, { pageSize })) chunks.push(chunk);
  const [header, ...rows] = chunks.join('').split('\r\n').slice(0, -1);
  return { header, rows, chunks };
}

async function adjust(store: { id: string }, amount: number, reason: string, now: Date, livemode = false) {
  return api.services.db.transaction((tx) => recordAdjustment(tx, { storeId: store.id, livemode }, { id: newBalanceTransactionId(livemode), amount, reason, now }));
}

describe('dashboard balance: the list query', () => {
  it('type, payout, source and a created range; bad input is a message', () => {
    expect(readBalanceTransactionsQuery({ type: 'fee', payout: 'po_test_abc', source: 'ord_test_def', from: '2026-03-01', to: '2026-03-02' }).filters).toEqual({
      type: 'fee',
      payout_id: 'po_test_abc',
      source_id: 'ord_test_def',
      created_gte: 1772323200,
      created_lte: 1772495999,
    });
    expect(readBalanceTransactionsQuery({ type: 'all', payout: '', source: '' }).filters).toEqual({});
    expect(readBalanceTransactionsQuery({ type: 'charge' }).problem).toBe('Choose a type from the list.');
    expect(readBalanceTransactionsQuery({ payout: 'ord_test_abc' }).problem).toBe('Payout takes a payout id (po_…).');
    expect(readBalanceTransactionsQuery({ source: 'cus_test_abc' }).problem).toBe('Source takes the id of an order, refund, dispute or payout (ord_…, re_…, dp_…, po_…).');
    expect(readBalanceTransactionsQuery({ from: 'yesterday' }).problem).toBe('Dates are days, YYYY-MM-DD.');
  });
});

describe('dashboard balance: balance_transactions.csv', () => {
  it('the header, every entry newest first, amounts as plain signed integers, text neutralised; this store and mode only', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const other = await newStore(api);
    await api.services.db.update(stores).set({ payoutScheduleTest: 'manual' }).where(eq(stores.id, store.id));
    const { order, invoice } = await paidOrder(api, store.key, 5000);
    await paidOrder(api, other.key, 5000);
    await adjust(store, 1000, 'Goodwill', T0, true);
    const now = new Date((await advanceClock(api, store.key, 7 * DAY)) * 1000);
    const adjustment = await adjust(store, -250, '=HYPERLINK("http://evil")', now);
    const payout = await createPayout(await actingAs(api.services, test(store), person({ email: 'ada@example.com', ip: '203.0.113.9', path: '/dashboard/test/balance' })), test(store));
    expect(payout.amount).toBe(4652 - 250);

    const { header, rows } = await csvOf(store);
    expect(header).toBe('id,created,available_on,type,amount,currency,source_type,source_id,description,status,payout_id');
    const cells = rows.map((row) => row.split(','));
    const created = '2026-03-01T12:00:00Z';
    const paidOut = '2026-03-08T12:00:00Z';
    expect(cells.map((row) => row.slice(1))).toEqual([
      [paidOut, paidOut, 'payout', String(-payout.amount), 'eur', 'payout', payout.id, `Payout ${payout.id}`, 'available', ''],
      [paidOut, paidOut, 'adjustment', '-250', 'eur', '', '', `"'=HYPERLINK(""http://evil"")"`, 'available', payout.id],
      [created, paidOut, 'fee', '-348', 'eur', 'order', order.id, `Fee 5% + 0.50 EUR on ${invoice.number}`, 'available', payout.id],
      [created, paidOut, 'tax', '-950', 'eur', 'order', order.id, `VAT ${invoice.number}`, 'available', payout.id],
      [created, paidOut, 'payment', '5950', 'eur', 'order', order.id, `Payment ${invoice.number}`, 'available', payout.id],
    ]);
    expect(cells[1]![0]).toBe(adjustment.id);
    expect(csvField(-250)).toBe('-250');

    // The other environment and another store keep their own ledgers.
    expect((await csvOf(store, {}, true)).rows.map((row) => row.split(',').slice(3, 5))).toEqual([['adjustment', '1000']]);
    expect((await csvOf(other)).rows).toHaveLength(3);
  });

  it('the list’s filters: type, payout, source and created days; read a page at a time', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    await api.services.db.update(stores).set({ payoutScheduleTest: 'manual' }).where(eq(stores.id, store.id));
    const first = await paidOrder(api, store.key, 5000);
    const now = new Date((await advanceClock(api, store.key, 7 * DAY)) * 1000);
    const second = await paidOrder(api, store.key, 1000);
    const payout = await createPayout(await actingAs(api.services, test(store), person({ email: 'ada@example.com', ip: '203.0.113.9', path: '/dashboard/test/balance' })), test(store));
    const typeAndSource = async (query: Record<string, string>) => (await csvOf(store, query)).rows.map((row) => row.split(',').slice(3, 8).join(' '));

    expect(await typeAndSource({ type: 'payment' })).toEqual([`payment 1190 eur order ${second.order.id}`, `payment 5950 eur order ${first.order.id}`]);
    expect(await typeAndSource({ payout: payout.id })).toEqual([`fee -348 eur order ${first.order.id}`, `tax -950 eur order ${first.order.id}`, `payment 5950 eur order ${first.order.id}`]);
    expect(await typeAndSource({ source: second.order.id, type: 'fee' })).toEqual([`fee -110 eur order ${second.order.id}`]);
    expect(await typeAndSource({ from: now.toISOString().slice(0, 10) })).toHaveLength(4);
    expect(await typeAndSource({ to: '2026-03-01' })).toHaveLength(3);
    const paged = await csvOf(store, {}, false, 2);
    expect(paged.chunks).toHaveLength(5);
    expect(paged.rows).toHaveLength(7);
  });
});

describe('dashboard balance: Pay out now', () => {
  it('one payout for a form posted twice (its key per rendering); another store’s balance untouched', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const other = await newStore(api);
    for (const each of [store, other]) await api.services.db.update(stores).set({ payoutScheduleTest: 'manual' }).where(eq(stores.id, each.id));
    await paidOrder(api, store.key, 5000);
    await paidOrder(api, other.key, 5000);
    await advanceClock(api, store.key, 7 * DAY);
    const ctx = await actingAs(api.services, test(store), person({ email: 'ada@example.com', ip: '203.0.113.9', path: '/dashboard/test/balance' }));
    const [once, again] = [await createPayout(ctx, test(store), formKey('a'.repeat(32), {})), await createPayout(ctx, test(store), formKey('a'.repeat(32), {}))];
    expect(again).toEqual(once);
    expect(await api.services.db.select().from(payouts).where(eq(payouts.storeId, store.id))).toHaveLength(1);
    expect(await api.services.db.select().from(payouts).where(eq(payouts.storeId, other.id))).toEqual([]);
  });
});
