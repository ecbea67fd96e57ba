import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { orders } from '@/db/schema';
import { TotalChangedError, updateSessionBilling } from '@/server/checkout/buyer-tax';
import { payCheckoutSession } from '@/server/payments/service';
import { checkBilling, type BillingForm } from '@/server/vat/billing';
import { createProduct } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createSession, submitCheckout } from '../invoices/support';

/**
 * Sessions of a store that taxes by the buyer's country, for the demo operator (a German VAT
 * ID): the worked examples to the cent, exclusive and inclusive, the reduced e-book rate,
 * reverse charge and a buyer outside the EU, as the session, the order, its lines and its
 * invoice show them; and the payment that charges only the total the buyer saw.
 */
const api = useTestApi();

const CONSUMER = { name: '', company: '', line1: '', postalCode: '', city: '', vatId: '' };
const billing = (fields: Partial<BillingForm> & { country: string }): BillingForm => ({ ...CONSUMER, ...fields });
const AUSTRIAN_COMPANY = billing({ country: 'AT', name: 'Anna Huber', company: 'Huber GmbH', line1: 'Ringstraße 1', postalCode: '1010', city: 'Wien', vatId: 'ATU13585627' });

const buyerCountryStore = () => createStore(api.services, { taxMode: 'buyer_country' });

/** A session of one product of 1999 cents, as set up; `ebook` sets its tax category. */
async function sessionOf(key: string, product: { tax_inclusive?: boolean; ebook?: boolean } = {}) {
  const created = await createProduct(api, key, { name: 'Payments in practice', amount: 1999, tax_inclusive: product.tax_inclusive ?? false, tax_category: product.ebook ? 'ebook' : 'standard' });
  return createSession(api, key, { price_id: created.price_id, customer_email: 'buyer@example.com' });
}

async function taxFor(sessionId: string, form: BillingForm) {
  const update = await updateSessionBilling(api.services, sessionId, form);
  if (update.kind !== 'taxed') throw new Error(`not taxed: ${JSON.stringify(update)}`);
  return update;
}

async function pay(sessionId: string, form: BillingForm, shownTotal: number, card = '4242424242424242') {
  const checked = await checkBilling(api.services.config, false, form);
  if (!checked.ok) throw new Error('billing refused');
  return payCheckoutSession(api.services, { sessionId, card: { number: card, expiry: '12/30', cvc: '123' }, billing: { checked: checked.billing, shownTotal } });
}

const amountsOf = (object: { amount_subtotal: number; amount_tax: number; amount_total: number }) => [object.amount_subtotal, object.amount_tax, object.amount_total];

describe('a session before the buyer names a country', () => {
  it('has no VAT, no tax country and no treatment; customer_details null', async () => {
    const store = await buyerCountryStore();
    const session = await sessionOf(store.keys.sk_test);
    expect(amountsOf(session)).toEqual([1999, 0, 1999]);
    expect(session).toMatchObject({ customer_details: null, tax_country: null, tax_treatment: null });
    const order = (await api.request('GET', `/api/v1/orders/${session.order_id}`, { key: store.keys.sk_test })).body;
    expect(order.lines[0]).toMatchObject({ tax_rate: null, amount_tax: 0 });
    expect(order).toMatchObject({ customer_details: null, tax_country: null, tax_treatment: null, tax_evidence: null, evidence_conflict: null });
  });
});

describe('the worked examples, 1999 cents, operator in Germany', () => {
  const cases = [
    { name: 'exclusive, Germany 19%', form: billing({ country: 'DE' }), rate: 19, amounts: [1999, 380, 2379], treatment: 'vat', taxCountry: 'DE' },
    { name: 'exclusive, Austria 20%', form: billing({ country: 'AT' }), rate: 20, amounts: [1999, 400, 2399], treatment: 'vat', taxCountry: 'AT' },
    { name: 'exclusive e-book, France 5.5%', form: billing({ country: 'FR' }), ebook: true, rate: 5.5, amounts: [1999, 110, 2109], treatment: 'vat', taxCountry: 'FR' },
    { name: 'exclusive, an Austrian company with a VAT ID: reverse charge', form: AUSTRIAN_COMPANY, rate: 0, amounts: [1999, 0, 1999], treatment: 'reverse_charge', taxCountry: 'AT' },
    { name: 'inclusive, Germany 19%', form: billing({ country: 'DE' }), inclusive: true, rate: 19, amounts: [1680, 319, 1999], treatment: 'vat', taxCountry: 'DE' },
    { name: 'inclusive, Austria 20%', form: billing({ country: 'AT' }), inclusive: true, rate: 20, amounts: [1666, 333, 1999], treatment: 'vat', taxCountry: 'AT' },
    { name: 'inclusive, United States: no EU VAT', form: billing({ country: 'US' }), inclusive: true, rate: 0, amounts: [1999, 0, 1999], treatment: 'outside_eu', taxCountry: 'US' },
    { name: 'Monaco is taxed as France', form: billing({ country: 'MC' }), rate: 20, amounts: [1999, 400, 2399], treatment: 'vat', taxCountry: 'FR' },
  ] as const;

  for (const example of cases) {
    it(`${example.name}: session, paid order, lines and invoice`, async () => {
      const store = await buyerCountryStore();
      const key = store.keys.sk_test;
      const session = await sessionOf(key, { tax_inclusive: 'inclusive' in example, ebook: 'ebook' in example });
      const taxed = await taxFor(session.id, example.form);
      expect([taxed.session.amountSubtotal, taxed.session.amountTax, taxed.session.amountTotal]).toEqual(example.amounts);

      const read = (await api.request('GET', `/api/v1/checkout/sessions/${session.id}`, { key })).body;
      expect(amountsOf(read)).toEqual(example.amounts);
      expect(read).toMatchObject({ tax_country: example.taxCountry, tax_treatment: example.treatment });
      expect(read.customer_details).toEqual({
        name: example.form.name || null,
        company: example.form.company || null,
        address: { line1: example.form.line1 || null, postal_code: example.form.postalCode || null, city: example.form.city || null, country: example.form.country },
        vat_id: example.form.vatId || null,
      });

      expect(await pay(session.id, example.form, example.amounts[2])).toMatchObject({ status: 'paid' });
      const order = (await api.request('GET', `/api/v1/orders/${session.order_id}`, { key })).body;
      expect(order.status).toBe('paid');
      expect(amountsOf(order)).toEqual(example.amounts);
      expect(order.lines[0]).toMatchObject({ tax_rate: example.rate, amount_subtotal: example.amounts[0], amount_tax: example.amounts[1], amount_total: example.amounts[2] });
      expect(order).toMatchObject({ tax_country: example.taxCountry, tax_treatment: example.treatment, customer_details: read.customer_details });
      expect(order.tax_evidence).toEqual([
        { type: 'billing_country', country: example.form.country },
        { type: 'card_country', country: null },
      ]);
      expect(order.evidence_conflict).toBe(false);

      const invoice = (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key })).body;
      expect(amountsOf(invoice)).toEqual(example.amounts);
      expect(invoice.lines[0]).toMatchObject({ tax_rate: example.rate });
      expect(invoice.tax_breakdown).toEqual([{ rate: example.rate, amount_net: example.amounts[0], amount_tax: example.amounts[1] }]);
      expect(invoice.buyer_vat_id).toBe(example.form.vatId || null);
    });
  }
});

describe('the payment charges the total the buyer saw, or nothing', () => {
  it('a country changed after the total was shown: nothing charged, the session shows the new total, then paying it succeeds', async () => {
    const store = await buyerCountryStore();
    const key = store.keys.sk_test;
    const session = await sessionOf(key);
    await taxFor(session.id, billing({ country: 'DE' }));
    await expect(pay(session.id, billing({ country: 'AT' }), 2379)).rejects.toEqual(new TotalChangedError(2399));
    const read = (await api.request('GET', `/api/v1/checkout/sessions/${session.id}`, { key })).body;
    expect(read).toMatchObject({ status: 'open', payment_status: 'unpaid', amount_total: 2399, tax_country: 'AT' });
    expect((await api.services.db.select({ status: orders.status }).from(orders).where(eq(orders.id, session.order_id)))[0]!.status).toBe('pending');
    expect(await pay(session.id, billing({ country: 'AT' }), 2399)).toMatchObject({ status: 'paid' });
    const order = (await api.request('GET', `/api/v1/orders/${session.order_id}`, { key })).body;
    expect(order).toMatchObject({ status: 'paid', amount_total: 2399 });
  });

  it('the card country is the second piece of evidence: a German card for a French billing address is a conflict, recorded and not refused', async () => {
    const store = await buyerCountryStore();
    const key = store.keys.sk_test;
    const session = await sessionOf(key);
    await taxFor(session.id, billing({ country: 'FR' }));
    expect(await pay(session.id, billing({ country: 'FR' }), 2399, '4000002760000016')).toMatchObject({ status: 'paid' });
    const order = (await api.request('GET', `/api/v1/orders/${session.order_id}`, { key })).body;
    expect(order.tax_evidence).toEqual([
      { type: 'billing_country', country: 'FR' },
      { type: 'card_country', country: 'DE' },
    ]);
    expect(order.evidence_conflict).toBe(true);
  });

  it('a Monaco address paid with a French card is no conflict', async () => {
    const store = await buyerCountryStore();
    const session = await sessionOf(store.keys.sk_test);
    await taxFor(session.id, billing({ country: 'MC' }));
    await pay(session.id, billing({ country: 'MC' }), 2399, '4000002500000003');
    const order = (await api.request('GET', `/api/v1/orders/${session.order_id}`, { key: store.keys.sk_test })).body;
    expect(order.evidence_conflict).toBe(false);
  });
});

describe('billing details refused', () => {
  it('no country, a VAT ID of another country, a VAT ID without the company’s name and address, a field too long', async () => {
    const store = await buyerCountryStore();
    const session = await sessionOf(store.keys.sk_test);
    expect(await updateSessionBilling(api.services, session.id, billing({ country: '' }))).toEqual({ kind: 'refused', errors: { country: 'country_required' } });
    expect(await updateSessionBilling(api.services, session.id, { ...AUSTRIAN_COMPANY, country: 'DE' })).toEqual({ kind: 'refused', errors: { vatId: 'vat_id_other_country' } });
    expect(await updateSessionBilling(api.services, session.id, billing({ country: 'AT', vatId: 'ATU13585627' }))).toEqual({
      kind: 'refused',
      errors: { company: 'field_required', line1: 'field_required', postalCode: 'field_required', city: 'field_required' },
    });
    expect(await updateSessionBilling(api.services, session.id, billing({ country: 'AT', city: 'x'.repeat(101) }))).toEqual({ kind: 'refused', errors: { city: 'field_too_long' } });
    const read = (await api.request('GET', `/api/v1/checkout/sessions/${session.id}`, { key: store.keys.sk_test })).body;
    expect(read).toMatchObject({ amount_total: 1999, tax_country: null, customer_details: null });
  });

  it('a Greek VAT ID (EL) for a Greek billing address is of the billing country', async () => {
    const store = await buyerCountryStore();
    const session = await sessionOf(store.keys.sk_test);
    const greek = billing({ country: 'GR', company: 'Alpha AE', line1: 'Odos 1', postalCode: '10552', city: 'Athina', vatId: 'EL094259216' });
    const taxed = await taxFor(session.id, greek);
    expect(taxed.session).toMatchObject({ taxCountry: 'GR', taxTreatment: 'reverse_charge', amountTotal: 1999 });
  });
});

describe('a store taxing by each product’s own rate', () => {
  it('keeps its sessions out of it: no billing update, and the fields stay null', async () => {
    const store = await createStore(api.services);
    const session = await sessionOf(store.keys.sk_test);
    expect(await updateSessionBilling(api.services, session.id, billing({ country: 'DE' }))).toEqual({ kind: 'closed' });
    expect(session).toMatchObject({ customer_details: null, tax_country: null, tax_treatment: null });
  });

  it('a VAT ID entered on its hosted page is the one billing detail the session, the order and the invoice show; no country, no treatment, no evidence', async () => {
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const session = await sessionOf(key);
    expect(await submitCheckout(api, session, { vat_id: 'DE 136 695 976' })).toMatchObject({ kind: 'redirect' });
    const details = { name: null, company: null, address: null, vat_id: 'DE136695976' };
    const read = (await api.request('GET', `/api/v1/checkout/sessions/${session.id}`, { key })).body;
    expect(read).toMatchObject({ status: 'complete', customer_details: details, tax_country: null, tax_treatment: null });
    const order = (await api.request('GET', `/api/v1/orders/${session.order_id}`, { key })).body;
    expect(order).toMatchObject({ customer_details: details, tax_country: null, tax_treatment: null, tax_evidence: null, evidence_conflict: null });
    const invoice = (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key })).body;
    expect(invoice).toMatchObject({ customer_details: details, buyer_vat_id: 'DE136695976', tax_country: null, tax_treatment: null, tax_note: null });
  });
});
