import { describe, expect, it } from 'vitest';
import { verifyLedger } from '@/server/balance/verify';
import { loadConfig } from '@/server/config';
import { epoch, expectError, T0 } from '../support/api';
import { expectJson, useAdminCli } from '../support/admin-cli';
import { useTestApi } from '../support/server';
import { fetchPdf, pdfPages } from '../invoices/support';
import { createPayout, DAY, holdOf, saveAs, storeWithTeam } from '../bank-accounts/support';

/**
 * A live payout from end to end, each step as its actor takes it: the owner saves the bank account
 * in the dashboard, the operator credits the store (`ledger:adjust`), the merchant asks for a
 * payout once the change's hold is over, the operator exports it to the bank, the bank's report
 * marks it paid, and its statement and the ledger add up.
 */
const operator = loadConfig({
  OPERATOR_LEGAL_NAME: 'Payments Operator GmbH',
  OPERATOR_ADDRESS: 'Hauptstraße 1, 10115 Berlin, Germany',
  OPERATOR_VAT_ID: 'DE123456789',
  OPERATOR_EMAIL: 'billing@payments.example',
  OPERATOR_IBAN: 'DE89370400440532013000',
  OPERATOR_BIC: 'COBADEFFXXX',
}).operator;
const api = useTestApi({ operator });
const { runCli } = useAdminCli(api);

describe('a live payout', { timeout: 120_000 }, () => {
  it('waits 7 days after the bank account is saved, goes to that account in the bank file, and is paid with a statement that adds up', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Live Prints' });
    expect(await holdOf(api, store.liveKey)).toEqual({ reason: 'destination_missing', until: null });

    await saveAs(api, store, true, { iban: 'FR14 2004 1010 0505 0001 3M02 606', accountHolder: 'Live Prints SARL' });
    const resumes = epoch(T0) + 7 * DAY;
    expect(await holdOf(api, store.liveKey)).toEqual({ reason: 'destination_changed', until: resumes });
    const credited = expectJson(await runCli(['ledger:adjust', '--store', store.id, '--env', 'live', '--amount', '4250', '--reason', 'March sales', '--idempotency-key', 'march-live']));
    expect(credited).toMatchObject({ type: 'adjustment', amount: 4250, livemode: true, status: 'available' });
    expectError(await createPayout(api, store.liveKey), 409, 'payouts_held');

    api.clock.set(new Date((resumes + 60) * 1000));
    expect(await holdOf(api, store.liveKey)).toBeNull();
    const created = await createPayout(api, store.liveKey);
    expect(created.status).toBe(201);
    const payout = created.body;
    expect(payout).toMatchObject({ amount: 4250, status: 'pending', arrival_date: null, destination: { iban_last4: '2606', account_holder: 'Live Prints SARL' }, livemode: true });
    // A later change of the account does not move a payout already made.
    await saveAs(api, store, true, { iban: 'DE02120300000000202051', accountHolder: 'Live Prints SARL' });

    // 2026-03-10 is a Tuesday: the transfer arrives on Wednesday.
    const exported = expectJson(await runCli(['payouts:export', '--date', '2026-03-10', '--out', '/dev/null']));
    expect(exported).toMatchObject({ message_id: 'PAYOUTS-20260310-1', count: 1, amount: 4250, payouts: [payout.id] });
    const sent = (await api.request('GET', `/api/v1/payouts/${payout.id}`, { key: store.liveKey })).body;
    expect(sent).toEqual({ ...payout, status: 'in_transit', arrival_date: epoch(new Date('2026-03-11T00:00:00Z')) });
    expectError(await api.request('GET', `/api/v1/payouts/${payout.id}/statement.pdf`, { key: store.liveKey }), 409, 'payout_not_paid');

    expect(expectJson(await runCli(['payouts:mark-paid', '--id', payout.id]))).toEqual({ ...sent, status: 'paid' });
    const events = (await api.request('GET', `/api/v1/events?object_id=${payout.id}`, { key: store.liveKey })).body.data;
    expect(events.map((event: { type: string }) => event.type)).toEqual(['payout.paid', 'payout.updated', 'payout.created']);

    const statement = await fetchPdf(api, `/api/v1/payouts/${payout.id}/statement.pdf`, store.liveKey);
    expect(statement.status).toBe(200);
    expect(statement.headers.get('content-type')).toBe('application/pdf');
    const text = (await pdfPages(statement.bytes)).join('\n');
    expect(text).toContain(payout.id);
    expect(text).toContain('March sales');
    expect(text).toContain('42.50');
    expect(await verifyLedger(api.services.db, api.clock.now(), store.id)).toMatchObject({ ok: true });
  });
});
