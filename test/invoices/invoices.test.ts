import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createProduct, epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { describeListContract, listOf } from '../support/lists';
import { useTestApi } from '../support/server';
import { createSession, fetchPdf, payCheckout, pdfPages, seedInvoicedOrder, storeCodeOf, submitCheckout } from './support';

/**
 * Invoices through HTTP: issued with every paid order (and only then), numbered without gaps,
 * read, listed and downloaded as PDF, never changed.
 */
const api = useTestApi();
const INVOICES = '/api/v1/invoices';
const DEMO_SELLER = { name: 'Example Payments GmbH (demo)', address: 'Musterstraße 1, 10115 Berlin, Germany (demo)', vat_id: 'DE123456789 (demo)' };

/** A store that calculates tax, with a 19 % exclusive and a 7 % inclusive product. */
async function taxedStore() {
  api.clock.set(T0);
  const store = await createStore(api.services, { taxCalculation: true, name: 'Atlas Books' });
  const key = store.keys.sk_test;
  const licence = await createProduct(api, key, { name: 'App licence', amount: 5000, tax_rate: 19 });
  const book = await createProduct(api, key, { name: 'Handbuch', amount: 1000, tax_rate: 7, tax_inclusive: true });
  return { store, key, licence, book, code: await storeCodeOf(api.services.db, store.id) };
}

describeListContract(api, {
  path: INVOICES,
  async make(store, { livemode }) {
    const { invoice } = await seedInvoicedOrder(api, store, { livemode });
    return (await api.request('GET', `${INVOICES}/${invoice.id}`, { key: livemode ? store.keys.sk_live : store.keys.sk_test })).body;
  },
  createdField: 'issued_at',
});

describe('an invoice is issued with each paid order', () => {
  it('two rates, a German customer with a VAT ID: every field, the order points at it, invoice.issued in the same commit', async () => {
    const { store, key, licence, book, code } = await taxedStore();
    const order = await payCheckout(api, key, { line_items: [{ price_id: licence.price_id, quantity: 2 }, { price_id: book.price_id }] }, { vat_id: 'de 111.111.125' }, 'de');
    expect(order.invoice_id).toMatch(/^in_test_[0-9A-Za-z]{24}$/);
    const response = await api.request('GET', `${INVOICES}/${order.invoice_id}`, { key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: order.invoice_id,
      object: 'invoice',
      number: `TEST-INV-${code}-000001`,
      livemode: false,
      order_id: order.id,
      subscription_id: null,
      customer_id: order.customer_id,
      customer_email: 'buyer@example.com',
      customer_name: null,
      buyer_vat_id: 'DE111111125',
      // A store taxing at the product's rate knows the VAT ID alone.
      customer_details: { name: null, company: null, address: null, vat_id: 'DE111111125' },
      tax_country: null,
      tax_treatment: null,
      tax_note: null,
      seller: DEMO_SELLER,
      currency: 'eur',
      lines: [
        { description: 'App licence', quantity: 2, unit_amount: 5000, amount_discount: 0, amount_subtotal: 10000, tax_rate: 19, amount_tax: 1900, amount_total: 11900 },
        { description: 'Handbuch', quantity: 1, unit_amount: 1000, amount_discount: 0, amount_subtotal: 935, tax_rate: 7, amount_tax: 65, amount_total: 1000 },
      ],
      tax_breakdown: [
        { rate: 19, amount_net: 10000, amount_tax: 1900 },
        { rate: 7, amount_net: 935, amount_tax: 65 },
      ],
      discount: null,
      amount_discount: 0,
      amount_subtotal: 10935,
      amount_tax: 1965,
      amount_total: 12900,
      language: 'de',
      withdrawal_waiver: null,
      issued_at: epoch(T0),
    });
    // Amounts are the order's, to the cent.
    expect([order.amount_subtotal, order.amount_tax, order.amount_total]).toEqual([10935, 1965, 12900]);
    const events = await api.request('GET', `/api/v1/events?type=invoice.issued&object_id=${order.invoice_id}`, { key });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0]).toMatchObject({ type: 'invoice.issued', sequence: 1, livemode: false, created: epoch(T0), data: { object: response.body } });
    const paid = await api.request('GET', `/api/v1/events?type=order.paid&object_id=${order.id}`, { key });
    expect(paid.body.data[0].data.object.invoice_id).toBe(order.invoice_id);
    expect(store.id).toBeTruthy();
  });

  it('numbers count 1, 2, 3 per store and environment; another store counts on its own; English is the default language', async () => {
    const { key, licence, code } = await taxedStore();
    const other = await taxedStore();
    const numbers = [];
    for (let i = 0; i < 3; i += 1) {
      const order = await payCheckout(api, key, { price_id: licence.price_id });
      numbers.push((await api.request('GET', `${INVOICES}/${order.invoice_id}`, { key })).body.number);
    }
    const otherOrder = await payCheckout(api, other.key, { price_id: other.licence.price_id });
    const otherInvoice = (await api.request('GET', `${INVOICES}/${otherOrder.invoice_id}`, { key: other.key })).body;
    expect(numbers).toEqual([1, 2, 3].map((n) => `TEST-INV-${code}-00000${n}`));
    expect(otherInvoice.number).toBe(`TEST-INV-${other.code}-000001`);
    expect(other.code).not.toBe(code);
    expect(otherInvoice).toMatchObject({ language: 'en', buyer_vat_id: null, customer_details: null, tax_breakdown: [{ rate: 19, amount_net: 5000, amount_tax: 950 }] });
  });

  it('a live invoice has no TEST- prefix and its own sequence', async () => {
    const { store, code } = await taxedStore();
    const { invoice } = await seedInvoicedOrder(api, store, { livemode: true });
    const live = await api.request('GET', `${INVOICES}/${invoice.id}`, { key: store.keys.sk_live });
    expect(live.body).toMatchObject({ number: `INV-${code}-000001`, livemode: true });
    expect(live.body.id).toMatch(/^in_live_/);
  });

  it('a declined payment issues nothing and takes no number: the next paid order continues the sequence', async () => {
    const { key, licence, code } = await taxedStore();
    const first = await payCheckout(api, key, { price_id: licence.price_id });
    const declined = await createSession(api, key, { price_id: licence.price_id, customer_email: 'buyer@example.com' });
    const outcome = await submitCheckout(api, declined, { card_number: '4000 0000 0000 0002' });
    expect(outcome).toMatchObject({ kind: 'redirect', location: expect.stringContaining('error=card_declined') });
    const order = await api.request('GET', `/api/v1/orders/${declined.order_id}`, { key });
    expect(order.body).toMatchObject({ status: 'pending', invoice_id: null });
    expect((await listOf(api, INVOICES, key, `order_id=${declined.order_id}`)).body.data).toEqual([]);
    const second = await payCheckout(api, key, { price_id: licence.price_id });
    const numbers = await Promise.all([first, second].map(async (paid) => (await api.request('GET', `${INVOICES}/${paid.invoice_id}`, { key })).body.number));
    expect(numbers).toEqual([`TEST-INV-${code}-000001`, `TEST-INV-${code}-000002`]);
  });
});

describe('GET /api/v1/invoices filters', () => {
  it('order_id, customer_id and subscription_id; a malformed id is 400 naming the filter', async () => {
    const { key, licence } = await taxedStore();
    const a = await payCheckout(api, key, { price_id: licence.price_id, customer_email: 'ada@example.com' });
    const b = await payCheckout(api, key, { price_id: licence.price_id, customer_email: 'bob@example.com' });
    const read = async (id: string) => (await api.request('GET', `${INVOICES}/${id}`, { key })).body;
    expect((await listOf(api, INVOICES, key, `order_id=${a.id}`)).body.data).toEqual([await read(a.invoice_id)]);
    expect((await listOf(api, INVOICES, key, `customer_id=${b.customer_id}`)).body.data).toEqual([await read(b.invoice_id)]);
    expect((await listOf(api, INVOICES, key, 'subscription_id=sub_test_000000000000000000000000')).body.data).toEqual([]);
    for (const [param, value] of [
      ['order_id', 'cus_test_x'],
      ['customer_id', 'nope'],
      ['subscription_id', 'ord_test_x'],
    ]) {
      expectError(await listOf(api, INVOICES, key, `${param}=${value}`), 400, 'parameter_invalid', param);
    }
  });
});

describe('GET /api/v1/invoices/{id} and /pdf', () => {
  it('an unknown id, one of another store and one of the other environment answer the identical 404, for the object and its PDF', async () => {
    const { store } = await taxedStore();
    const { invoice: foreign } = await seedInvoicedOrder(api, await createStore(api.services));
    const { invoice: live } = await seedInvoicedOrder(api, store, { livemode: true });
    const unknown = `${foreign.id.slice(0, -4)}zzzz`;
    for (const suffix of ['', '/pdf']) {
      const responses = await Promise.all([unknown, foreign.id, live.id].map((id) => rawApiRequest(api, 'GET', `${INVOICES}/${id}${suffix}`, store.keys.sk_test)));
      expectIdenticalMissing(responses, 'id');
    }
    expectError(await api.request('GET', `${INVOICES}/${live.id}/pdf`), 401, 'missing_api_key');
    expectError(await api.request('GET', `${INVOICES}/${live.id}/pdf`, { key: store.keys.pk_live }), 401, 'wrong_key_type');
  });

  it('the PDF, in German: seller, buyer with VAT ID, number, dates, lines, VAT per rate, totals in EUR, the footer', async () => {
    const { key, licence, book, code } = await taxedStore();
    const order = await payCheckout(api, key, { line_items: [{ price_id: licence.price_id, quantity: 2 }, { price_id: book.price_id }] }, { vat_id: 'DE111111125' }, 'de');
    const pdf = await fetchPdf(api, `${INVOICES}/${order.invoice_id}/pdf`, key);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`inline; filename="TEST-INV-${code}-000001.pdf"`);
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const [page, ...more] = await pdfPages(pdf.bytes);
    expect(more).toEqual([]);
    for (const text of [
      'Rechnung',
      `Nummer TEST-INV-${code}-000001`,
      'TESTMODUS',
      'VERKÄUFER Example Payments GmbH (demo) Musterstraße 1, 10115 Berlin, Germany (demo) USt-IdNr.: DE123456789 (demo)',
      'Verkauft im Auftrag von Atlas Books',
      'Ausstellungsdatum 1. März 2026',
      'Leistungsdatum 1. März 2026',
      'KÄUFER buyer@example.com USt-IdNr.: DE111111125',
      'App licence 2 50,00 € 19 % 100,00 € 119,00 €',
      'Handbuch 1 10,00 € 7 % 9,35 € 10,00 €',
      '19 % 100,00 € 19,00 €',
      '7 % 9,35 € 0,65 €',
      'Zwischensumme (netto) 109,35 €',
      'Umsatzsteuer 19,65 €',
      'Gesamtbetrag 129,00 €',
      'Example Payments GmbH (demo) · Musterstraße 1, 10115 Berlin, Germany (demo) · USt-IdNr.: DE123456789 (demo) · billing@payments.example',
      `TEST-INV-${code}-000001 · Seite 1 von 1`,
    ]) {
      expect(page).toContain(text);
    }
  });

  it('the PDF in English; many lines run over several pages, each with the footer', async () => {
    const store = await createStore(api.services, { name: 'Long Cart Ltd' });
    const lines = Array.from({ length: 45 }, (_, i) => ({ description: `Item number ${i + 1}`, unitAmount: 100 + i }));
    const { invoice } = await seedInvoicedOrder(api, store, { lines });
    const pdf = await fetchPdf(api, `${INVOICES}/${invoice.id}/pdf`, store.keys.sk_test);
    const pages = await pdfPages(pdf.bytes);
    expect(pages.length).toBeGreaterThan(1);
    pages.forEach((page, index) => expect(page).toContain(`${invoice.number} · Page ${index + 1} of ${pages.length}`));
    const all = pages.join(' ');
    expect(all).toContain('Invoice');
    expect(all).toContain('Date of issue 1 March 2026');
    for (let i = 1; i <= 45; i += 1) expect(all).toContain(`Item number ${i} 1 €${((100 + i - 1) / 100).toFixed(2)}`);
    const total = lines.reduce((sum, line) => sum + line.unitAmount, 0);
    expect(all).toContain(`Total €${(total / 100).toFixed(2)}`);
    expect(all).toContain('No VAT was charged on this sale.');
  });

  it('over /api/trpc the PDF comes as base64 in JSON', async () => {
    const { key, licence } = await taxedStore();
    const order = await payCheckout(api, key, { price_id: licence.price_id });
    const input = encodeURIComponent(JSON.stringify({ id: order.invoice_id }));
    const response = await api.request('GET', `/api/trpc/invoices.retrievePdf?input=${input}`, { key });
    expect(response.status).toBe(200);
    const file = response.body.result.data;
    expect(file).toMatchObject({ content_type: 'application/pdf', filename: expect.stringMatching(/^TEST-INV-[0-9A-Z]{6}-000001\.pdf$/) });
    expect((await pdfPages(Buffer.from(file.content_base64, 'base64')))[0]).toContain('Total €59.50');
  });
});

describe('immutability', () => {
  it('the database refuses to change or delete an issued invoice', async () => {
    const { store } = await taxedStore();
    const { invoice } = await seedInvoicedOrder(api, store);
    // Drizzle wraps the database's error: the trigger's message is its cause.
    const refusal = { cause: expect.objectContaining({ message: 'invoices rows are immutable: issue a credit note instead' }) };
    await expect(api.services.db.execute(sql`update invoices set amount_total = 1 where id = ${invoice.id}`)).rejects.toMatchObject(refusal);
    await expect(api.services.db.execute(sql`delete from invoices where id = ${invoice.id}`)).rejects.toMatchObject(refusal);
    expect((await api.request('GET', `${INVOICES}/${invoice.id}`, { key: store.keys.sk_test })).body.amount_total).toBe(invoice.amountTotal);
  });
});
