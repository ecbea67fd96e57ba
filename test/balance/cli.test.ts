import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, balanceTransactions, payouts, stores } from '@/db/schema';
import { recordPayoutEntry } from '@/server/balance/ledger';
import { randomBase62 } from '@/server/ids';
import { T0 } from '../support/api';
import { expectFailure, expectJson, useAdminCli } from '../support/admin-cli';
import { useTestApi } from '../support/server';
import { balanceOf, entriesOf, newStore, paidOrder } from './support';

/** The operator's side of the ledger, as a process: fee rates, adjustments and ledger:verify. */
const api = useTestApi();
const { runCli } = useAdminCli(api);

const auditOf = (storeId: string, action: string) =>
  api.services.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.storeId, storeId), eq(auditEvents.action, action)));

describe('npm run admin: the ledger', { timeout: 150_000 }, () => {
  it('store:update --fee-percent --fee-fixed sets the rates of orders paid afterwards; bad values exit 1 saying why', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const before = await paidOrder(api, store.key);
    const updated = expectJson(await runCli(['store:update', '--id', store.id, '--fee-percent', '2.5', '--fee-fixed', '0']));
    expect(updated.fees).toEqual({ percent: 2.5, fixed: 0 });
    expect((await auditOf(store.id, 'admin.store.update')).map((entry) => entry.details)).toEqual([{ changes: { feeBasisPoints: 250, feeFixed: 0 } }]);
    const after = await paidOrder(api, store.key, 1999);
    expect((await entriesOf(api, store.key, after.order.id))[0]).toMatchObject({ amount: -59, description: `Fee 2.5% + 0.00 EUR on ${after.invoice.number}` });
    expect((await entriesOf(api, store.key, before.order.id))[0]).toMatchObject({ amount: -110, description: `Fee 5% + 0.50 EUR on ${before.invoice.number}` });

    expect(expectJson(await runCli(['store:update', '--id', store.id, '--fee-percent', '12.34'])).fees).toEqual({ percent: 12.34, fixed: 0 });
    for (const percent of ['5.125', '100.01', '-1', 'five']) {
      expectFailure(await runCli(['store:update', '--id', store.id, '--fee-percent', percent]), 1, /BAD_REQUEST \(400\): feePercent: must be a percentage from 0 to 100 with at most two decimals/);
    }
    for (const fixed of ['1.5', '-1', 'fifty']) {
      expectFailure(await runCli(['store:update', '--id', store.id, '--fee-fixed', fixed]), 1, /BAD_REQUEST \(400\): feeFixed: must be a whole number of cents/);
    }
  });

  it('ledger:adjust prints the entry, audited, available at once; idempotent with a key; zero, a long reason or an unknown store exit 1', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const entry = expectJson(await runCli(['ledger:adjust', '--store', store.id, '--env', 'test', '--amount', '-250', '--reason', 'Chargeback fee of March']));
    expect(entry).toEqual({
      id: expect.stringMatching(/^btx_test_[0-9A-Za-z]{24}$/),
      object: 'balance_transaction',
      type: 'adjustment',
      amount: -250,
      currency: 'eur',
      source: null,
      description: 'Chargeback fee of March',
      created: expect.any(Number),
      available_on: entry.created,
      status: 'available',
      payout_id: null,
      livemode: false,
    });
    expect((await api.request('GET', `/api/v1/balance_transactions/${entry.id}`, { key: store.key })).body).toEqual(entry);
    expect(await balanceOf(api, store.key)).toMatchObject({ available: -250, pending: 0 });
    expect((await auditOf(store.id, 'admin.ledger.adjust')).map((audit) => audit.details)).toEqual([{ livemode: false, entry: entry.id, amount: -250, reason: 'Chargeback fee of March' }]);

    const live = expectJson(await runCli(['ledger:adjust', '--store', store.id, '--env', 'live', '--amount', '1000', '--reason', 'Goodwill', '--idempotency-key', 'goodwill-1']));
    expect(live).toMatchObject({ id: expect.stringMatching(/^btx_live_/), amount: 1000, livemode: true, status: 'available' });
    expect(expectJson(await runCli(['ledger:adjust', '--store', store.id, '--env', 'live', '--amount', '1000', '--reason', 'Goodwill', '--idempotency-key', 'goodwill-1']))).toEqual(live);
    expectFailure(
      await runCli(['ledger:adjust', '--store', store.id, '--env', 'live', '--amount', '999', '--reason', 'Goodwill', '--idempotency-key', 'goodwill-1']),
      1,
      /idempotency_key_reused|CONFLICT \(409\)/,
    );
    expect(await balanceOf(api, store.liveKey)).toMatchObject({ available: 1000, pending: 0 });

    expectFailure(await runCli(['ledger:adjust', '--store', store.id, '--env', 'test', '--amount', '0', '--reason', 'Nothing']), 1, /BAD_REQUEST \(400\): amount: must not be 0/);
    expectFailure(await runCli(['ledger:adjust', '--store', store.id, '--env', 'test', '--amount', '5', '--reason', 'x'.repeat(501)]), 1, /BAD_REQUEST \(400\): reason: /);
    expectFailure(await runCli(['ledger:adjust', '--store', 'acct_missing', '--env', 'test', '--amount', '5', '--reason', 'Why']), 1, /NOT_FOUND \(404\): No store with id 'acct_missing'\./);
    expectFailure(await runCli(['ledger:adjust', '--store', store.id, '--env', 'prod', '--amount', '5', '--reason', 'Why']), 2, /--env takes live or test, not "prod"/);
    expectFailure(await runCli(['ledger:adjust', '--store', store.id, '--env', 'test', '--amount', '5.5', '--reason', 'Why']), 2, /--amount takes whole cents/);
    expect((await auditOf(store.id, 'admin.ledger.adjust')).length).toBe(2);
  });

  it('ledger:verify: ok after payments, refunds and adjustments; a tampered ledger exits 1 naming the mismatch', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const { order } = await paidOrder(api, store.key);
    expect((await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: order.id, amount: 300 } })).status).toBe(201);
    expectJson(await runCli(['ledger:adjust', '--store', store.id, '--env', 'test', '--amount', '75', '--reason', 'Correction']));

    expect(expectJson(await runCli(['ledger:verify', '--store', store.id]))).toEqual({
      ok: true,
      checked: { stores: 1, orders: 1, refunds: 1, disputes: 0, payouts: 0, balance_transactions: 6 },
    });
    const everything = expectJson(await runCli(['ledger:verify']));
    expect(everything).toMatchObject({ ok: true, checked: { disputes: 0, payouts: 0 } });
    expect(everything.checked.stores).toBeGreaterThan(1);

    await api.services.db.insert(balanceTransactions).values({
      id: 'btx_test_TamperedTamperedTampered',
      storeId: store.id,
      livemode: false,
      type: 'payment',
      amount: 1190,
      sourceType: 'order',
      sourceId: `ord_test_${randomBase62(24)}`,
      description: 'Payment of nothing',
      createdAt: T0,
      availableOn: T0,
    });
    const result = await runCli(['ledger:verify', '--store', store.id]);
    expect(result.code).toBe(1);
    const verification = JSON.parse(result.stdout);
    expect(verification).toMatchObject({ ok: false, checked: { balance_transactions: 7 } });
    expect(verification.mismatches.map((mismatch: { check: string }) => mismatch.check)).toEqual(['order_entries', 'balance']);
    expect(verification.mismatches[0]).toEqual({
      check: 'order_entries',
      store: store.id,
      livemode: false,
      object_id: expect.stringMatching(/^ord_test_/),
      expected: { payment: [], tax: [], fee: [] },
      actual: { payment: [1190], tax: [], fee: [] },
    });
    expect(result.stderr).toContain(`Mismatch order_entries: ${verification.mismatches[0].object_id}`);
    expect(result.stderr).toContain(`Mismatch balance: ${store.id}`);
  });
});

describe('npm run admin: payouts', { timeout: 150_000 }, () => {
  it('payouts:mark-failed gives the amount back and holds payouts; a wrong status or an unknown payout exits 1 changing nothing', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    await api.services.db.update(stores).set({ payoutScheduleTest: 'manual' }).where(eq(stores.id, store.id));
    await paidOrder(api, store.key, 5000);
    await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: store.key, body: { seconds: 7 * 86_400 } });
    const payout = (await api.request('POST', '/api/v1/payouts', { key: store.key, body: {} })).body;
    expect(payout.status).toBe('paid');

    expectFailure(await runCli(['payouts:mark-paid', '--id', payout.id]), 1, /Payout po_test_\w+ is paid: only a payout in_transit can become paid/);
    expectFailure(await runCli(['payouts:cancel', '--id', payout.id]), 1, /only a payout pending can become canceled/);
    expectFailure(await runCli(['payouts:mark-failed', '--id', 'po_test_AAAAAAAAAAAAAAAAAAAAAAAA', '--reason', 'bank_rejected']), 1, /No payout with id/);
    expectFailure(await runCli(['payouts:mark-failed', '--id', payout.id, '--reason', 'lost']), 2, /--reason takes account_closed, invalid_account, name_mismatch, bank_rejected/);
    expect((await api.request('GET', `/api/v1/payouts/${payout.id}`, { key: store.key })).body).toEqual(payout);

    const failed = expectJson(await runCli(['payouts:mark-failed', '--id', payout.id, '--reason', 'bank_rejected']));
    expect(failed).toEqual({ ...payout, status: 'failed', failure_reason: 'bank_rejected' });
    expect((await auditOf(store.id, 'admin.payout.failed')).map((entry) => entry.details)).toEqual([{ livemode: false, payout: payout.id, to: 'failed', reason: 'bank_rejected' }]);
    expect((await entriesOf(api, store.key, payout.id)).map((entry: { type: string; amount: number; description: string }) => [entry.type, entry.amount, entry.description])).toEqual([
      ['payout_failure', payout.amount, `Payout failed ${payout.id}`],
      ['payout', -payout.amount, `Payout ${payout.id}`],
    ]);
    expect(await balanceOf(api, store.key)).toMatchObject({ available: payout.amount, payout_hold: { reason: 'payout_failed', until: null } });
    const held = await api.request('POST', '/api/v1/payouts', { key: store.key, body: {} });
    expect(held.status).toBe(409);
    expect(held.body.error).toMatchObject({ code: 'payouts_held', message: expect.stringMatching(/payout_failed/) });
    const events = (await api.request('GET', `/api/v1/events?object_id=${payout.id}`, { key: store.key })).body.data;
    expect(events.map((event: { type: string }) => event.type)).toEqual(['payout.failed', 'payout.paid', 'payout.created']);
    expect(events[0].data.previous_attributes).toEqual({ status: 'paid', failure_reason: null });
    expectFailure(await runCli(['payouts:mark-failed', '--id', payout.id, '--reason', 'bank_rejected']), 1, /is failed/);
    expect(expectJson(await runCli(['ledger:verify', '--store', store.id]))).toMatchObject({ ok: true, checked: { payouts: 1 } });
  });

  it('payouts:cancel turns a pending payout canceled with its payout_cancel entry and payout.updated', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    // Test payouts are paid at once: a pending one as a live payout waits for its file.
    const pending = { id: `po_test_${randomBase62(24)}`, storeId: store.id, livemode: false, amount: 1500 };
    await api.services.db.transaction(async (tx) => {
      await tx.insert(payouts).values({ ...pending, status: 'pending', iban: 'DE89370400440532013000', accountHolder: 'Store', createdAt: T0 });
      await recordPayoutEntry(tx, pending, 'payout', T0);
    });
    const canceled = expectJson(await runCli(['payouts:cancel', '--id', pending.id]));
    expect(canceled).toMatchObject({ id: pending.id, status: 'canceled', failure_reason: null, arrival_date: null });
    expect((await entriesOf(api, store.key, pending.id)).map((entry: { type: string; amount: number; description: string }) => [entry.type, entry.amount, entry.description])).toEqual([
      ['payout_cancel', 1500, `Payout canceled ${pending.id}`],
      ['payout', -1500, `Payout ${pending.id}`],
    ]);
    const [updated] = (await api.request('GET', `/api/v1/events?object_id=${pending.id}`, { key: store.key })).body.data;
    expect(updated).toMatchObject({ type: 'payout.updated', data: { object: canceled, previous_attributes: { status: 'pending' } } });
    expect((await auditOf(store.id, 'admin.payout.canceled')).map((entry) => entry.details)).toEqual([{ livemode: false, payout: pending.id, to: 'canceled' }]);
    expectFailure(await runCli(['payouts:cancel', '--id', pending.id]), 1, /is canceled/);
  });
});
