import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { emails } from '@/db/schema';
import { advanceClock, DAY } from '../billing/support';
import { auditOf, storeWithTeam, testEmails, type TeamStore } from '../bank-accounts/support';
import { entriesOf } from '../balance/support';
import { expectFailure, expectJson, useAdminCli } from '../support/admin-cli';
import { createProduct, epoch, expectError, T0 } from '../support/api';
import { createSession, fetchPdf, pdfPages } from '../invoices/support';
import { useTestApi } from '../support/server';
import { eventsOf } from '../subscriptions/support';
import { DISPUTES, entryRows, paidOrder, useSimulatedAcquirer } from './support';

/**
 * The operator records the acquirer's disputes, as a process: `disputes:create` on an order of any
 * store and mode, `disputes:close` with the acquirer's outcome, `disputes:list`; and after each
 * scenario `ledger:verify` finds the ledger following from the documents.
 */
const api = useTestApi();
useSimulatedAcquirer(api);
const { runCli, runCliProcess } = useAdminCli(api);

const NO_EVIDENCE = { customer_communication: null, product_description: null, uncategorized_text: null };
const LIVE_DISPUTE = /^dp_live_[0-9A-Za-z]{24}$/;

const taxedStore = (name: string) => storeWithTeam(api, { name, taxCalculation: true });

async function ledgerVerified(store: { id: string }, disputes: number) {
  expect(expectJson(await runCli(['ledger:verify', '--store', store.id]))).toMatchObject({ ok: true, checked: { disputes } });
}

const refund = (key: string, body: Record<string, unknown>) => api.request('POST', '/api/v1/refunds', { key, body });

/** A dispute as the API reads it. */
async function readDispute(key: string, id: string) {
  const response = await api.request('GET', `${DISPUTES}/${id}`, { key });
  expect(response.status).toBe(200);
  return response.body;
}

/** The store's e-mail rows of a template (live e-mails are not in the test outbox). */
const emailRowsOf = (store: TeamStore, template: 'dispute_created') =>
  api.services.db
    .select()
    .from(emails)
    .where(and(eq(emails.storeId, store.id), eq(emails.template, template)));

describe('npm run admin -- disputes:create', { timeout: 150_000 }, () => {
  it('opens the dispute of a live order in full: prints it, writes its three entries, e-mails owners and admins, records dispute.created and its audit, refuses refunds', async () => {
    api.clock.set(T0);
    const store = await taxedStore('Live Disputes');
    const order = await paidOrder(api, store.liveKey);
    expect(order).toMatchObject({ livemode: true, status: 'paid', amount_total: 1190, amount_tax: 190, dispute_id: null });

    api.clock.set(new Date(T0.getTime() + 3600_000));
    const opened = epoch(T0) + 3600;
    const dispute = expectJson(await runCli(['disputes:create', '--order', order.id, '--reason', 'fraudulent']));
    expect(dispute).toEqual({
      id: expect.stringMatching(LIVE_DISPUTE),
      object: 'dispute',
      order_id: order.id,
      amount: 1190,
      currency: 'eur',
      reason: 'fraudulent',
      status: 'needs_response',
      evidence_due_by: opened + 7 * DAY,
      evidence: NO_EVIDENCE,
      evidence_submitted_at: null,
      created: opened,
      livemode: true,
    });
    expect(await readDispute(store.liveKey, dispute.id)).toEqual(dispute);
    expect((await api.request('GET', `/api/v1/orders/${order.id}`, { key: store.liveKey })).body.dispute_id).toBe(dispute.id);
    // The test mode of the store has none.
    expect((await api.request('GET', DISPUTES, { key: store.key })).body.data).toEqual([]);

    const entries = await entriesOf(api, store.liveKey, dispute.id);
    expect(entries).toEqual(
      [
        ['dispute_fee', -1500, `Dispute fee ${dispute.id}`],
        ['tax', 190, `VAT dispute ${dispute.id}`],
        ['dispute', -1190, `Dispute ${dispute.id}`],
      ].map(([type, amount, description]) => ({
        id: expect.stringMatching(/^btx_live_/),
        object: 'balance_transaction',
        type,
        amount,
        currency: 'eur',
        source: { type: 'dispute', id: dispute.id },
        description,
        created: opened,
        available_on: opened,
        status: 'available',
        payout_id: null,
        livemode: true,
      })),
    );

    const mails = await emailRowsOf(store, 'dispute_created');
    expect(mails.map((mail) => mail.toAddress).sort()).toEqual([...store.owners, store.admin].sort());
    for (const mail of mails) expect(mail).toMatchObject({ livemode: true, orderId: order.id, disputeId: dispute.id, language: 'en', createdAt: new Date(opened * 1000) });
    // Live e-mails are sent, not kept in the test outbox.
    expect(await testEmails(api, store.key, 'dispute_created')).toEqual([]);

    expect((await eventsOf(api.services.db, dispute.id)).map((event) => [event.type, event.livemode, event.data.object])).toEqual([['dispute.created', true, dispute]]);
    const audits = await auditOf(api, store, 'dispute.create');
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      storeId: store.id,
      livemode: true,
      keyHint: null,
      method: 'POST',
      path: '/api/admin/trpc/dispute.create',
      details: { dispute: dispute.id, order: order.id, reason: 'fraudulent', amount: 1190, evidence_due_by: opened + 7 * DAY },
    });

    expectError(await refund(store.liveKey, { order_id: order.id, amount: 100 }), 409, 'order_disputed');
    await ledgerVerified(store, 1);
  });

  it('takes by default what remains after a partial refund, a smaller --amount and a given deadline; more than remains exits 1', async () => {
    api.clock.set(T0);
    const store = await taxedStore('Partly Refunded');
    const whole = await paidOrder(api, store.liveKey);
    const part = await paidOrder(api, store.liveKey);
    for (const order of [whole, part]) expect((await refund(store.liveKey, { order_id: order.id, amount: 300 })).body).toMatchObject({ status: 'succeeded', amount: 300 });

    expectFailure(
      await runCli(['disputes:create', '--order', whole.id, '--reason', 'duplicate', '--amount', '891']),
      1,
      new RegExp(`^Error: BAD_REQUEST \\(400\\): \`amount\` must be a positive number of cents, at most what remains unrefunded on order ${whole.id}: 890\\.\\n$`),
    );
    const rest = expectJson(await runCli(['disputes:create', '--order', whole.id, '--reason', 'duplicate']));
    expect(rest).toMatchObject({ amount: 890, reason: 'duplicate', status: 'needs_response' });
    // The VAT of 890 is what the invoice has left after the refund's credit note took 48 of 190.
    expect(entryRows(await entriesOf(api, store.liveKey, rest.id))).toEqual([
      ['dispute_fee', -1500, `Dispute fee ${rest.id}`],
      ['tax', 142, `VAT dispute ${rest.id}`],
      ['dispute', -890, `Dispute ${rest.id}`],
    ]);

    const deadline = epoch(T0) + 10 * DAY;
    const smaller = expectJson(await runCli(['disputes:create', '--order', part.id, '--reason', 'general', '--amount', '500', '--evidence-due-by', String(deadline)]));
    expect(smaller).toMatchObject({ amount: 500, reason: 'general', evidence_due_by: deadline, created: epoch(T0) });
    expect(entryRows(await entriesOf(api, store.liveKey, smaller.id))).toEqual([
      ['dispute_fee', -1500, `Dispute fee ${smaller.id}`],
      ['tax', 80, `VAT dispute ${smaller.id}`],
      ['dispute', -500, `Dispute ${smaller.id}`],
    ]);
    // What the dispute left of the order stays unrefundable while it is open.
    expectError(await refund(store.liveKey, { order_id: part.id, amount: 1 }), 409, 'order_disputed');
    await ledgerVerified(store, 2);
  });

  it('exits 1 changing nothing for an order unpaid, already disputed, refunded in full or unknown, an amount of 0 or a past deadline; 2 for a wrong command line', async () => {
    api.clock.set(T0);
    const store = await taxedStore('Refused Disputes');
    const product = await createProduct(api, store.liveKey, { name: 'Ebook', amount: 1000, tax_rate: 19 });
    const unpaid = await createSession(api, store.liveKey, { price_id: product.price_id });
    const refunded = await paidOrder(api, store.liveKey);
    expect((await refund(store.liveKey, { order_id: refunded.id })).body).toMatchObject({ status: 'succeeded', amount: 1190 });
    const paid = await paidOrder(api, store.liveKey);
    const entriesBefore = (await api.request('GET', '/api/v1/balance_transactions?limit=100', { key: store.liveKey })).body.data;

    const create = (orderId: string, ...flags: string[]) => runCli(['disputes:create', '--order', orderId, '--reason', 'fraudulent', ...flags]);
    expectFailure(await create(unpaid.order_id), 1, new RegExp(`^Error: BAD_REQUEST \\(400\\): Order ${unpaid.order_id} is not paid: only a paid order can be disputed\\.\\n$`));
    expectFailure(await create(refunded.id), 1, new RegExp(`^Error: CONFLICT \\(409\\): Order ${refunded.id} has been refunded in full: nothing remains to dispute\\.\\n$`));
    expectFailure(await create('ord_live_AAAAAAAAAAAAAAAAAAAAAAAA'), 1, /^Error: NOT_FOUND \(404\): No order with id 'ord_live_AAAAAAAAAAAAAAAAAAAAAAAA'\.\n$/);
    expectFailure(
      await create(paid.id, '--amount', '0'),
      1,
      /^Error: BAD_REQUEST \(400\): `amount` must be a positive number of cents, at most what remains unrefunded on order ord_live_\w+: 1190\.\n$/,
    );
    expectFailure(
      await create(paid.id, '--evidence-due-by', String(epoch(T0))),
      1,
      /^Error: BAD_REQUEST \(400\): `evidence_due_by` must be later than the dispute's opening, \d+ \(epoch seconds\)\.\n$/,
    );
    expectFailure(await create(paid.id, '--amount', '5.5'), 2, /--amount takes whole cents, not "5\.5"/);
    expectFailure(await create(paid.id, '--evidence-due-by', 'tomorrow'), 2, /--evidence-due-by takes a time in epoch seconds, not "tomorrow"/);
    expectFailure(
      await runCli(['disputes:create', '--order', paid.id, '--reason', 'stolen']),
      2,
      /--reason takes fraudulent, product_not_received, duplicate, subscription_canceled, unrecognized, general, not "stolen"/,
    );
    expectFailure(await runCliProcess(['disputes:create', '--order', paid.id]), 2, /--reason is required\. Usage: disputes:create --order ORDER_ID/);
    expectFailure(await runCli(['disputes:create', '--reason', 'fraudulent']), 2, /--order is required/);
    expect((await api.request('GET', '/api/v1/balance_transactions?limit=100', { key: store.liveKey })).body.data).toEqual(entriesBefore);
    expect((await api.request('GET', DISPUTES, { key: store.liveKey })).body.data).toEqual([]);
    expect(await auditOf(api, store, 'dispute.create')).toEqual([]);

    const dispute = expectJson(await create(paid.id));
    expectFailure(await create(paid.id), 1, new RegExp(`^Error: CONFLICT \\(409\\): Order ${paid.id} already has a dispute, ${dispute.id}: an order is disputed at most once\\.\\n$`));
    expect((await api.request('GET', DISPUTES, { key: store.liveKey })).body.data).toEqual([dispute]);
    await ledgerVerified(store, 1);
  });

  it('opens the dispute of a test order on the store’s test clock, its e-mails in the test outbox', async () => {
    api.clock.set(T0);
    const store = await taxedStore('Test Disputes');
    const order = await paidOrder(api, store.key, 2000);
    await advanceClock(api, store.key, DAY);
    const dispute = expectJson(await runCli(['disputes:create', '--order', order.id, '--reason', 'unrecognized']));
    expect(dispute).toEqual({
      id: expect.stringMatching(/^dp_test_/),
      object: 'dispute',
      order_id: order.id,
      amount: 2380,
      currency: 'eur',
      reason: 'unrecognized',
      status: 'needs_response',
      evidence_due_by: epoch(T0) + 8 * DAY,
      evidence: NO_EVIDENCE,
      evidence_submitted_at: null,
      created: epoch(T0) + DAY,
      livemode: false,
    });
    const mails = await testEmails(api, store.key, 'dispute_created');
    expect(mails.map((mail: { to: string }) => mail.to).sort()).toEqual([...store.owners, store.admin].sort());
    expect(mails[0]).toMatchObject({ related: { order_id: order.id, dispute_id: dispute.id }, created: epoch(T0) + DAY });
    expect((await api.request('GET', DISPUTES, { key: store.liveKey })).body.data).toEqual([]);
    await ledgerVerified(store, 1);
  });
});

describe('npm run admin -- disputes:close', { timeout: 150_000 }, () => {
  it('won: the amount and its VAT back (the fee kept), dispute.closed, audited; the order can be refunded again; closing again exits 1', async () => {
    api.clock.set(T0);
    const store = await taxedStore('Won Disputes');
    const order = await paidOrder(api, store.liveKey);
    const dispute = expectJson(await runCli(['disputes:create', '--order', order.id, '--reason', 'product_not_received']));
    api.clock.set(new Date(T0.getTime() + 2 * DAY * 1000));
    const won = expectJson(await runCli(['disputes:close', '--id', dispute.id, '--outcome', 'won']));
    expect(won).toEqual({ ...dispute, status: 'won' });
    expect(await readDispute(store.liveKey, dispute.id)).toEqual(won);
    const entries = await entriesOf(api, store.liveKey, dispute.id);
    expect(entryRows(entries)).toEqual([
      ['tax', -190, `VAT dispute won ${dispute.id}`],
      ['dispute_reversal', 1190, `Dispute won ${dispute.id}`],
      ['dispute_fee', -1500, `Dispute fee ${dispute.id}`],
      ['tax', 190, `VAT dispute ${dispute.id}`],
      ['dispute', -1190, `Dispute ${dispute.id}`],
    ]);
    expect(entries.slice(0, 2).map((entry: { created: number; available_on: number }) => [entry.created, entry.available_on])).toEqual([
      [epoch(T0) + 2 * DAY, epoch(T0) + 2 * DAY],
      [epoch(T0) + 2 * DAY, epoch(T0) + 2 * DAY],
    ]);
    const events = await eventsOf(api.services.db, dispute.id);
    expect(events.map((event) => event.type)).toEqual(['dispute.created', 'dispute.closed']);
    expect(events[1]!.data).toEqual({ object: won, previous_attributes: { status: 'needs_response' } });
    expect((await auditOf(api, store, 'dispute.close')).map((entry) => [entry.livemode, entry.path, entry.details])).toEqual([
      [true, '/api/admin/trpc/dispute.close', { dispute: dispute.id, order: order.id, outcome: 'won' }],
    ]);

    expect((await refund(store.liveKey, { order_id: order.id, amount: 100 })).body).toMatchObject({ status: 'succeeded', amount: 100 });
    expectFailure(await runCli(['disputes:close', '--id', dispute.id, '--outcome', 'lost']), 1, new RegExp(`^Error: CONFLICT \\(409\\): Dispute ${dispute.id} is already won\\.\\n$`));
    expect(await readDispute(store.liveKey, dispute.id)).toEqual(won);
    await ledgerVerified(store, 1);
  });

  it('lost: a credit note for the amount (reason dispute_lost), no entry, refunds still refused; an unknown id or outcome exits', async () => {
    api.clock.set(T0);
    const store = await taxedStore('Lost Disputes');
    const order = await paidOrder(api, store.liveKey);
    const dispute = expectJson(await runCli(['disputes:create', '--order', order.id, '--reason', 'fraudulent']));
    const lost = expectJson(await runCli(['disputes:close', '--id', dispute.id, '--outcome', 'lost']));
    expect(lost).toEqual({ ...dispute, status: 'lost' });
    expect(entryRows(await entriesOf(api, store.liveKey, dispute.id)).map(([type]) => type)).toEqual(['dispute_fee', 'tax', 'dispute']);
    const notes = (await api.request('GET', `/api/v1/credit_notes?order_id=${order.id}`, { key: store.liveKey })).body.data;
    expect(notes).toEqual([
      expect.objectContaining({
        livemode: true,
        order_id: order.id,
        invoice_id: order.invoice_id,
        refund_id: null,
        dispute_id: dispute.id,
        reason: 'dispute_lost',
        amount_total: 1190,
        amount_tax: 190,
      }),
    ]);
    expect(notes[0].number).toMatch(/^CN-/);
    expectError(await refund(store.liveKey, { order_id: order.id }), 409, 'order_disputed');
    expect((await eventsOf(api.services.db, dispute.id)).map((event) => event.type)).toEqual(['dispute.created', 'dispute.closed']);

    expectFailure(await runCli(['disputes:close', '--id', dispute.id, '--outcome', 'won']), 1, /is already lost\./);
    expectFailure(
      await runCli(['disputes:close', '--id', 'dp_live_AAAAAAAAAAAAAAAAAAAAAAAA', '--outcome', 'won']),
      1,
      /^Error: NOT_FOUND \(404\): No dispute with id 'dp_live_AAAAAAAAAAAAAAAAAAAAAAAA'\.\n$/,
    );
    expectFailure(await runCli(['disputes:close', '--id', dispute.id, '--outcome', 'withdrawn']), 2, /--outcome takes won or lost, not "withdrawn"/);
    expectFailure(await runCli(['disputes:close', '--id', dispute.id]), 2, /--outcome is required/);
    await ledgerVerified(store, 1);
  });
});

describe('npm run admin -- disputes:list', { timeout: 150_000 }, () => {
  it('lists every store’s disputes in both modes newest first, of one status with --status', async () => {
    const first = await taxedStore('Listed One');
    const second = await taxedStore('Listed Two');
    api.clock.set(T0);
    const orders = [await paidOrder(api, first.liveKey), await paidOrder(api, second.key), await paidOrder(api, second.liveKey)];
    const opened = [];
    for (const [index, order] of orders.entries()) {
      api.clock.set(new Date(T0.getTime() + (index + 1) * 60_000));
      opened.push(expectJson(await runCli(['disputes:create', '--order', order.id, '--reason', 'general'])));
    }
    const won = expectJson(await runCli(['disputes:close', '--id', opened[1].id, '--outcome', 'won']));
    const ours = new Set(opened.map((dispute) => dispute.id));
    const listed = expectJson(await runCli(['disputes:list']));
    expect(Object.keys(listed)).toEqual(['object', 'data']);
    expect(listed.object).toBe('list');
    expect(listed.data.filter((dispute: { id: string }) => ours.has(dispute.id))).toEqual([opened[2], won, opened[0]]);
    // Newest first across all stores.
    const created = listed.data.map((dispute: { created: number }) => dispute.created);
    expect(created).toEqual([...created].sort((a, b) => b - a));

    const wonOnly = expectJson(await runCli(['disputes:list', '--status', 'won'])).data;
    expect(wonOnly.filter((dispute: { id: string }) => ours.has(dispute.id))).toEqual([won]);
    expect(new Set(wonOnly.map((dispute: { status: string }) => dispute.status))).toEqual(new Set(['won']));
    const open = expectJson(await runCli(['disputes:list', '--status', 'needs_response'])).data;
    expect(open.filter((dispute: { id: string }) => ours.has(dispute.id))).toEqual([opened[2], opened[0]]);
    expectFailure(await runCli(['disputes:list', '--status', 'open']), 2, /--status takes needs_response, under_review, won, lost, not "open"/);
    await ledgerVerified(first, 1);
    await ledgerVerified(second, 2);
  });
});

describe('npm run admin -- disputes:evidence', { timeout: 150_000 }, () => {
  it('writes the evidence pack to --out and prints { file, size }: the same PDF the store’s API gives; an unknown id exits 1, no --out exits 2', async () => {
    api.clock.set(T0);
    const store = await taxedStore('Evidence Printer');
    const order = await paidOrder(api, store.liveKey);
    const dispute = expectJson(await runCli(['disputes:create', '--order', order.id, '--reason', 'unrecognized']));
    const out = path.join(await mkdtemp(path.join(tmpdir(), 'evidence-')), 'pack.pdf');
    const printed = expectJson(await runCli(['disputes:evidence', '--id', dispute.id, '--out', out]));
    const written = await readFile(out);
    expect(printed).toEqual({ file: out, size: written.length });
    const text = (await pdfPages(written)).join('\n');
    expect(text).toContain(dispute.id);
    expect(text).toContain(order.id);
    const viaApi = await fetchPdf(api, `${DISPUTES}/${dispute.id}/evidence.pdf`, store.liveKey);
    expect(viaApi.status).toBe(200);
    expect((await pdfPages(viaApi.bytes)).join('\n')).toBe(text);
    expectFailure(await runCli(['disputes:evidence', '--id', 'dp_live_000000000000000000000000', '--out', out]), 1, /No dispute with id/);
    expectFailure(await runCli(['disputes:evidence', '--id', dispute.id]), 2, /--out/);
  });
});
