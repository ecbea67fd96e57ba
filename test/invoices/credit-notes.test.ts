import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { GatewayRejectedError, GatewayTimeoutError, type PaymentGateway } from '@/server/gateway/types';
import { reconcilePendingRefunds } from '@/server/orders/refunds/reconcile';
import { createRefund } from '@/server/orders/refunds/service';
import { OPERATOR } from '@/server/audit/service';
import { insertOrder } from '../orders/fixtures';
import { createProduct, epoch, expectError, expectIdenticalMissing, rawApiRequest, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { listOf } from '../support/lists';
import { useTestApi } from '../support/server';
import { fetchPdf, payCheckout, pdfPages, seedInvoicedOrder, storeCodeOf } from './support';

/**
 * Credit notes through HTTP: one for each succeeded refund of an invoiced order, split over the
 * invoice's VAT rates, numbered in a sequence of their own, never beyond what was paid.
 */
const api = useTestApi();
const CREDIT_NOTES = '/api/v1/credit_notes';

/** An order of a 19 % line (2 × 50.00 + VAT) and a 7 % VAT-inclusive one (10.00), paid on the hosted page: 129.00. */
async function paidTwoRateOrder(language?: 'de' | 'en') {
  api.clock.set(T0);
  const store = await createStore(api.services, { taxCalculation: true, name: 'Atlas Books' });
  const key = store.keys.sk_test;
  const licence = await createProduct(api, key, { name: 'App licence', amount: 5000, tax_rate: 19 });
  const book = await createProduct(api, key, { name: 'Handbook', amount: 1000, tax_rate: 7, tax_inclusive: true });
  const order = await payCheckout(api, key, { line_items: [{ price_id: licence.price_id, quantity: 2 }, { price_id: book.price_id }] }, {}, language);
  const invoice = (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key })).body;
  return { store, key, order, invoice, code: await storeCodeOf(api.services.db, store.id) };
}

const refund = (key: string, body: Record<string, unknown>) => api.request('POST', '/api/v1/refunds', { key, body });

describe('a credit note with each succeeded refund', () => {
  it('a full refund credits the invoice line by line: every field, refund.credit_note_id, credit_note.issued, refund.updated naming it', async () => {
    const { key, order, invoice, code } = await paidTwoRateOrder();
    api.clock.advance(60);
    const refunded = await refund(key, { order_id: order.id });
    expect(refunded.status).toBe(201);
    expect(refunded.body.credit_note_id).toMatch(/^cn_test_[0-9A-Za-z]{24}$/);
    const note = await api.request('GET', `${CREDIT_NOTES}/${refunded.body.credit_note_id}`, { key });
    expect(note.status).toBe(200);
    expect(note.body).toEqual({
      id: refunded.body.credit_note_id,
      object: 'credit_note',
      number: `TEST-CN-${code}-000001`,
      livemode: false,
      invoice_id: invoice.id,
      refund_id: refunded.body.id,
      dispute_id: null,
      reason: 'refund',
      order_id: order.id,
      customer_details: null,
      tax_country: null,
      tax_treatment: null,
      tax_note: null,
      lines: invoice.lines,
      tax_breakdown: invoice.tax_breakdown,
      amount_subtotal: 10935,
      amount_tax: 1965,
      amount_total: 12900,
      issued_at: epoch(T0) + 60,
    });
    const issued = await api.request('GET', `/api/v1/events?type=credit_note.issued&object_id=${note.body.id}`, { key });
    expect(issued.body.data.map((event: { data: unknown }) => event.data)).toEqual([{ object: note.body }]);
    const updated = await api.request('GET', `/api/v1/events?type=refund.updated&object_id=${refunded.body.id}`, { key });
    expect(updated.body.data[0].data).toEqual({ object: refunded.body, previous_attributes: { status: 'pending', credit_note_id: null } });
    expect((await api.request('GET', `/api/v1/orders/${order.id}`, { key })).body.refunds).toEqual([refunded.body]);
  });

  it('partial refunds split over the rates in proportion to their totals, exact to the cent; the last completes each rate', async () => {
    const { key, order, invoice, code } = await paidTwoRateOrder('de');
    const first = await refund(key, { order_id: order.id, amount: 3333 });
    const note = (await api.request('GET', `${CREDIT_NOTES}/${first.body.credit_note_id}`, { key })).body;
    // 3333 of 12900: 19 % takes 11900/12900 of it (3074.6 → 3075), 7 % the rest (258);
    // VAT within each: round(3075 × 1900/11900) = 491, round(258 × 65/1000) = 17.
    expect(note).toMatchObject({
      lines: [
        { description: `Teilerstattung zu Rechnung ${invoice.number} (USt. 19 %)`, quantity: 1, unit_amount: 2584, amount_subtotal: 2584, tax_rate: 19, amount_tax: 491, amount_total: 3075 },
        { description: `Teilerstattung zu Rechnung ${invoice.number} (USt. 7 %)`, quantity: 1, unit_amount: 241, amount_subtotal: 241, tax_rate: 7, amount_tax: 17, amount_total: 258 },
      ],
      tax_breakdown: [
        { rate: 19, amount_net: 2584, amount_tax: 491 },
        { rate: 7, amount_net: 241, amount_tax: 17 },
      ],
      amount_subtotal: 2825,
      amount_tax: 508,
      amount_total: 3333,
    });
    api.clock.advance(1);
    const second = await refund(key, { order_id: order.id, amount: 1 });
    api.clock.advance(1);
    const third = await refund(key, { order_id: order.id });
    const notes = await Promise.all([first, second, third].map(async (made) => (await api.request('GET', `${CREDIT_NOTES}/${made.body.credit_note_id}`, { key })).body));
    expect(notes.map((made) => made.number)).toEqual([1, 2, 3].map((n) => `TEST-CN-${code}-00000${n}`));
    expect(notes.map((made) => made.amount_total)).toEqual([3333, 1, 12900 - 3334]);
    for (const made of notes) expect(made.amount_subtotal + made.amount_tax).toBe(made.amount_total);
    // Together they credit exactly what the invoice charged, per rate.
    for (const rate of invoice.tax_breakdown) {
      const credited = notes.flatMap((made) => made.tax_breakdown).filter((entry: { rate: number }) => entry.rate === rate.rate);
      expect([
        credited.reduce((sum: number, entry: { amount_net: number }) => sum + entry.amount_net, 0),
        credited.reduce((sum: number, entry: { amount_tax: number }) => sum + entry.amount_tax, 0),
      ]).toEqual([rate.amount_net, rate.amount_tax]);
    }
    // Listed newest first, by invoice and by order.
    const byInvoice = await listOf(api, CREDIT_NOTES, key, `invoice_id=${invoice.id}`);
    expect(byInvoice.body).toEqual({ object: 'list', data: [...notes].reverse(), has_more: false, url: CREDIT_NOTES, livemode: false });
    expect((await listOf(api, CREDIT_NOTES, key, `order_id=${order.id}&limit=1`)).body).toMatchObject({ data: [notes[2]], has_more: true });
    // Nothing is left to refund: no further refund, no further credit note.
    expectError(await refund(key, { order_id: order.id, amount: 1 }), 409, 'order_already_processed');
    expect((await listOf(api, CREDIT_NOTES, key, `invoice_id=${invoice.id}`)).body.data).toHaveLength(3);
  });

  it('a refund beyond what remains is refused and credits nothing', async () => {
    const { key, order } = await paidTwoRateOrder();
    expectError(await refund(key, { order_id: order.id, amount: 12901 }), 400, 'parameter_invalid', 'amount');
    expect((await listOf(api, CREDIT_NOTES, key, `order_id=${order.id}`)).body.data).toEqual([]);
  });

  it('a failed refund credits nothing; a pending one credits when it succeeds', async () => {
    const { store, order } = await paidTwoRateOrder();
    const scope = { storeId: store.id, livemode: false };
    const deps = (gateway: PaymentGateway) => ({ db: api.services.db, clock: api.clock, wallClock: api.clock, gateway, actor: OPERATOR });
    const simulator = api.services.gateways.test;
    const refusing: PaymentGateway = { ...simulator, refund: async () => Promise.reject(new GatewayRejectedError('refused')) };
    const failed = await createRefund(deps(refusing), scope, { order_id: order.id, amount: 500 });
    expect(failed).toMatchObject({ status: 'failed', credit_note_id: null });

    api.clock.advance(1);
    const timingOut: PaymentGateway = {
      ...simulator,
      refund: async (request) => {
        await simulator.refund(request);
        throw new GatewayTimeoutError();
      },
    };
    await expect(createRefund(deps(timingOut), scope, { order_id: order.id, amount: 700 })).rejects.toMatchObject({ code: 'payment_outcome_unknown' });
    const pending = (await api.request('GET', `/api/v1/orders/${order.id}`, { key: store.keys.sk_test })).body.refunds.at(-1);
    expect(pending).toMatchObject({ status: 'pending', credit_note_id: null });
    expect((await listOf(api, CREDIT_NOTES, store.keys.sk_test, `order_id=${order.id}`)).body.data).toEqual([]);

    api.clock.advance(120);
    expect(await reconcilePendingRefunds({ db: api.services.db, clock: api.clock, gateways: api.services.gateways })).toBe(1);
    const settled = (await api.request('GET', `/api/v1/refunds/${pending.id}`, { key: store.keys.sk_test })).body;
    expect(settled).toMatchObject({ status: 'succeeded', credit_note_id: expect.stringMatching(/^cn_test_/) });
    const notes = (await listOf(api, CREDIT_NOTES, store.keys.sk_test, `order_id=${order.id}`)).body.data;
    expect(notes).toEqual([expect.objectContaining({ id: settled.credit_note_id, refund_id: pending.id, amount_total: 700 })]);
  });

  it('an order paid without an invoice (before invoices existed) is refunded without a credit note', async () => {
    const store = await createStore(api.services);
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 2500 }] });
    const refunded = await refund(store.keys.sk_test, { order_id: order.id });
    expect(refunded.body).toMatchObject({ status: 'succeeded', credit_note_id: null });
  });
});

describe('GET /api/v1/credit_notes/{id} and /pdf', () => {
  it('the PDF in English: the credit note, the invoice it corrects, its lines and what was credited', async () => {
    const { key, order, invoice, code } = await paidTwoRateOrder();
    const refunded = await refund(key, { order_id: order.id, amount: 1290 });
    const pdf = await fetchPdf(api, `${CREDIT_NOTES}/${refunded.body.credit_note_id}/pdf`, key);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`inline; filename="TEST-CN-${code}-000001.pdf"`);
    const [page] = await pdfPages(pdf.bytes);
    for (const text of [
      'Credit note',
      `Number TEST-CN-${code}-000001`,
      `Corrects invoice ${invoice.number} (1 March 2026)`,
      'BUYER buyer@example.com',
      'SELLER Example Payments GmbH (demo)',
      '19 % €10.00 €1.90',
      '7 % €0.93 €0.07',
      'Total credited €12.90',
    ]) {
      expect(page).toContain(text);
    }
    // The line's description wraps in its column; its words are all there, in order.
    const squashed = page!.replace(/\s/g, '');
    expect(squashed).toContain(`Partialrefundofinvoice${invoice.number}(VAT19%)1€10.0019%€10.00€11.90`);
    expect(squashed).toContain(`Partialrefundofinvoice${invoice.number}(VAT7%)1€0.937%€0.93€1.00`);
  });

  it('an unknown id, one of another store and one of the other environment answer the identical 404; unknown filters are refused', async () => {
    const { key, order } = await paidTwoRateOrder();
    const own = await refund(key, { order_id: order.id, amount: 100 });
    const other = await paidTwoRateOrder();
    const foreign = await refund(other.key, { order_id: other.order.id, amount: 100 });
    const unknown = `${own.body.credit_note_id.slice(0, -4)}zzzz`;
    for (const suffix of ['', '/pdf']) {
      const responses = await Promise.all([unknown, foreign.body.credit_note_id].map((id) => rawApiRequest(api, 'GET', `${CREDIT_NOTES}/${id}${suffix}`, key)));
      expectIdenticalMissing(responses, 'id');
    }
    expectError(await listOf(api, CREDIT_NOTES, key, 'invoice_id=ord_test_x'), 400, 'parameter_invalid', 'invoice_id');
    expectError(await listOf(api, CREDIT_NOTES, key, 'status=paid'), 400, 'parameter_invalid', 'status');
    expectError(await listOf(api, CREDIT_NOTES, key, `starting_after=${foreign.body.credit_note_id}`), 404, 'resource_missing', 'starting_after');
    const live = await seedInvoicedOrder(api, other.store, { livemode: true });
    expect((await listOf(api, CREDIT_NOTES, other.store.keys.sk_live)).body).toEqual({ object: 'list', data: [], has_more: false, url: CREDIT_NOTES, livemode: true });
    expect(live.invoice.livemode).toBe(true);
  });

  it('the database refuses to change or delete an issued credit note', async () => {
    const { key, order } = await paidTwoRateOrder();
    const refunded = await refund(key, { order_id: order.id, amount: 100 });
    const refusal = { cause: expect.objectContaining({ message: 'credit_notes rows are immutable: issue a credit note instead' }) };
    await expect(api.services.db.execute(sql`update credit_notes set amount_total = 1 where id = ${refunded.body.credit_note_id}`)).rejects.toMatchObject(refusal);
    await expect(api.services.db.execute(sql`delete from credit_notes where id = ${refunded.body.credit_note_id}`)).rejects.toMatchObject(refusal);
  });
});
