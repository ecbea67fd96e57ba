import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { payoutSettlements, payouts, stores } from '@/db/schema';
import { newBalanceTransactionId, recordAdjustment, recordPayoutEntry } from '@/server/balance/ledger';
import { newId } from '@/server/ids';
import { changePayoutStatus } from '@/server/payouts/service';
import { expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { useTestApi } from '../support/server';
import { advanceClock, DAY } from '../billing/support';
import { newStore, paidOrder } from '../balance/support';
import { fetchPdf, pdfPages } from '../invoices/support';

/** Statements of paid payouts, read back from the PDF's text. */
const api = useTestApi();

const statementPath = (id: string) => `/api/v1/payouts/${id}/statement.pdf`;

async function manualStore() {
  const store = await newStore(api);
  await api.services.db.update(stores).set({ payoutScheduleTest: 'manual' }).where(eq(stores.id, store.id));
  return store;
}

/** The operator's adjustment, recorded at `now` on the store's test clock. */
async function adjust(storeId: string, amount: number, reason: string, now: Date, livemode = false) {
  return api.services.db.transaction((tx) => recordAdjustment(tx, { storeId, livemode }, { id: newBalanceTransactionId(livemode), amount, reason, now }));
}

/**
 * A live payout of `entries`, paid, written as the payout, the bank file's export and
 * `payouts:mark-paid` leave it (live payouts need a bank account, which the dashboard saves).
 */
async function paidLivePayout(storeId: string, entries: { id: string; amount: number }[], now: Date) {
  const amount = entries.reduce((sum, entry) => sum + entry.amount, 0);
  return api.services.db.transaction(async (tx) => {
    const [payout] = await tx
      .insert(payouts)
      .values({
        id: newId('po', true),
        storeId,
        livemode: true,
        amount,
        status: 'paid',
        failureReason: null,
        arrivalDate: new Date(now.getTime() + 2 * DAY * 1000),
        iban: 'DE02120300000000202051',
        accountHolder: 'Ada Lovelace',
        createdAt: now,
        scheduledFor: null,
      })
      .returning();
    await tx.insert(payoutSettlements).values(entries.map((entry) => ({ balanceTransactionId: entry.id, payoutId: payout!.id })));
    await recordPayoutEntry(tx, payout!, 'payout', now);
    return payout!;
  });
}

/**
 * Two payments (59.50 with 9.50 VAT and a 3.48 fee; 11.90 with 1.90 VAT and a 1.10 fee), a refund
 * of 11.90 of the first (1.90 VAT back) and an adjustment of −2.50, paid out a week later.
 */
async function settledPayout() {
  api.clock.set(T0);
  const store = await manualStore();
  const first = await paidOrder(api, store.key, 5000);
  const second = await paidOrder(api, store.key, 1000);
  const now = await advanceClock(api, store.key, 7 * DAY);
  const refund = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: first.order.id, amount: 1190 } });
  expect(refund.status).toBe(201);
  const creditNote = (await api.request('GET', `/api/v1/credit_notes/${refund.body.credit_note_id}`, { key: store.key })).body;
  await adjust(store.id, -250, 'Chargeback fee of March', new Date(now * 1000));
  const payout = await api.request('POST', '/api/v1/payouts', { key: store.key, body: {} });
  expect(payout.status).toBe(201);
  return { store, first, second, creditNote, payout: payout.body };
}

describe('GET /api/v1/payouts/{id}/statement.pdf', () => {
  it('one row per order, refund and adjustment; the totals per type and the amount paid out agree to the cent', async () => {
    const { store, first, second, creditNote, payout } = await settledPayout();
    expect(payout.amount).toBe(5950 - 950 - 348 + (1190 - 190 - 110) - 1190 + 190 - 250);
    const pdf = await fetchPdf(api, statementPath(payout.id), store.key);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`inline; filename="statement-${payout.id}.pdf"`);
    const [page, ...more] = await pdfPages(pdf.bytes);
    expect(more).toEqual([]);
    for (const text of [
      `Payout statement Payout ${payout.id} TEST MODE: no money was paid out; this document has no legal effect.`,
      'PAID BY Example Payments GmbH (demo) Musterstraße 1, 10115 Berlin, Germany (demo) VAT ID: DE123456789 (demo)',
      'Created 8 March 2026',
      'Arrival date 8 March 2026',
      'Bank account •••• 3000',
      `PAID TO ${payout.destination.account_holder} Store ID: ${store.id}`,
      'Date Document Gross VAT Fee Net',
      `1 Mar 2026 ${first.invoice.number} €59.50 -€9.50 -€3.48 €46.52`,
      `1 Mar 2026 ${second.invoice.number} €11.90 -€1.90 -€1.10 €8.90`,
      `8 Mar 2026 ${creditNote.number} -€11.90 €1.90 €0.00 -€10.00`,
      '8 Mar 2026 Adjustment: Chargeback fee of March -€2.50 €0.00 €0.00 -€2.50',
      'Total €57.00 -€9.50 -€4.58 €42.92',
      'TOTALS BY TYPE Payments €71.40 VAT -€9.50 Fees -€4.58 Refunds -€11.90 Adjustments -€2.50 Paid out €42.92',
      'This statement is not an invoice.',
      `Example Payments GmbH (demo) · Musterstraße 1, 10115 Berlin, Germany (demo) · VAT ID: DE123456789 (demo) · billing@payments.example ${payout.id} · Page 1 of 1`,
    ]) {
      expect(page).toContain(text);
    }
    expect(payout.amount).toBe(4292);
  });

  it('in the store’s language: German', async () => {
    const { store, first, creditNote, payout } = await settledPayout();
    await api.services.db.update(stores).set({ language: 'de' }).where(eq(stores.id, store.id));
    const [page] = await pdfPages((await fetchPdf(api, statementPath(payout.id), store.key)).bytes);
    for (const text of [
      `Auszahlungsübersicht Auszahlung ${payout.id} TESTMODUS: Es wurde kein Geld ausgezahlt; dieses Dokument hat keine rechtliche Wirkung.`,
      'AUSZAHLENDER Example Payments GmbH (demo)',
      'Erstellt 8. März 2026',
      'Gutschrift 8. März 2026',
      'Bankkonto •••• 3000',
      `EMPFÄNGER ${payout.destination.account_holder} Shop-ID: ${store.id}`,
      'Datum Beleg Brutto USt. Gebühr Netto',
      `01.03.2026 ${first.invoice.number} 59,50 € -9,50 € -3,48 € 46,52 €`,
      `08.03.2026 ${creditNote.number} -11,90 € 1,90 € 0,00 € -10,00 €`,
      '08.03.2026 Korrektur: Chargeback fee of March -2,50 € 0,00 € 0,00 € -2,50 €',
      'Summe 57,00 € -9,50 € -4,58 € 42,92 €',
      'SUMMEN NACH ART Zahlungen 71,40 € Umsatzsteuer -9,50 € Gebühren -4,58 € Erstattungen -11,90 € Korrekturen -2,50 € Ausgezahlt 42,92 €',
      'Diese Übersicht ist keine Rechnung.',
      `${payout.id} · Seite 1 von 1`,
    ]) {
      expect(page).toContain(text);
    }
  });

  it('over /api/trpc the same file in base64', async () => {
    const { store, payout } = await settledPayout();
    const input = encodeURIComponent(JSON.stringify({ id: payout.id }));
    const response = await api.request('GET', `/api/trpc/payouts.retrieveStatement?input=${input}`, { key: store.key });
    expect(response.status).toBe(200);
    const file = response.body.result.data;
    expect(file).toMatchObject({ filename: `statement-${payout.id}.pdf`, content_type: 'application/pdf' });
    expect(Buffer.from(file.content_base64, 'base64')).toEqual((await fetchPdf(api, statementPath(payout.id), store.key)).bytes);
  });

  it('409 payout_not_paid for a payout no longer paid; an unknown id, another store’s and the other environment’s answer the identical 404', async () => {
    const { store, payout } = await settledPayout();
    const other = await newStore(api);
    const unknown = rawApiRequest(api, 'GET', statementPath('po_test_AAAAAAAAAAAAAAAAAAAAAAAA'), store.key);
    expectIdenticalMissing(await Promise.all([unknown, rawApiRequest(api, 'GET', statementPath(payout.id), other.key), rawApiRequest(api, 'GET', statementPath(payout.id), store.liveKey)]), 'id');
    expectError(await api.request('GET', statementPath(payout.id)), 401, 'missing_api_key');

    await api.services.db.transaction((tx) => changePayoutStatus(tx, payout.id, { to: 'failed', reason: 'account_closed' }, api.clock));
    const refused = await api.request('GET', statementPath(payout.id), { key: store.key });
    expectError(refused, 409, 'payout_not_paid');
    expect(refused.body.error.message).toBe(`Payout ${payout.id} is failed: only a paid payout has a statement.`);
  });

  it('live: no test notice; 45 causes run over several pages, each with the footer, and still add up', async () => {
    api.clock.set(T0);
    const store = await newStore(api);
    const entries = [];
    for (let n = 1; n <= 45; n += 1) entries.push(await adjust(store.id, n * 100 - 1, `Correction ${n}`, T0, true));
    const payout = await paidLivePayout(store.id, entries, T0);
    expectIdenticalMissing(
      await Promise.all([rawApiRequest(api, 'GET', statementPath(payout.id), store.key), rawApiRequest(api, 'GET', statementPath('po_live_AAAAAAAAAAAAAAAAAAAAAAAA'), store.liveKey)]),
      'id',
    );
    const pdf = await fetchPdf(api, statementPath(payout.id), store.liveKey);
    expect(pdf.status).toBe(200);
    const pages = await pdfPages(pdf.bytes);
    expect(pages.length).toBeGreaterThan(1);
    pages.forEach((page, index) => expect(page).toContain(`${payout.id} · Page ${index + 1} of ${pages.length}`));
    const all = pages.join(' ');
    expect(all).not.toContain('TEST MODE');
    expect(all).toContain('Arrival date 3 March 2026 Bank account •••• 2051 Account holder Ada Lovelace');
    for (let n = 1; n <= 45; n += 1) expect(all).toContain(`1 Mar 2026 Adjustment: Correction ${n} €${(n - 0.01).toFixed(2)} €0.00 €0.00 €${(n - 0.01).toFixed(2)}`);
    // 1 + 2 + … + 45 euros, less a cent each.
    expect(payout.amount).toBe(103_500 - 45);
    expect(all).toContain('Total €1,034.55 €0.00 €0.00 €1,034.55');
    expect(all).toContain('TOTALS BY TYPE Adjustments €1,034.55 Paid out €1,034.55');
  });
});
