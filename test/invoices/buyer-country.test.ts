import { describe, expect, it } from 'vitest';
import { epoch, T0 } from '../support/api';
import { CARD_OF, createBuyerCountryStore, createTaxedProduct, payBuyerSale } from '../support/buyer-country';
import { useTestApi } from '../support/server';
import { fetchPdf, pdfPages } from './support';

/**
 * Invoices and credit notes of a store taxing by the buyer's country: the buyer's billing
 * details, the tax country and treatment and the note on a sale without VAT, in the API, the
 * events and the PDF, in English and German; rates with decimals.
 */
const api = useTestApi();
const AUSTRIAN_COMPANY = { country: 'AT', name: 'Anna Gruber', company: 'Gruber Verlag GmbH', line1: 'Ringstraße 1', postalCode: '1010', city: 'Wien', vatId: 'ATU 135 856 27' };

async function getJson(key: string, path: string) {
  const response = await api.request('GET', `/api/v1${path}`, { key });
  expect(response.status).toBe(200);
  return response.body;
}

async function pdfText(key: string, path: string): Promise<string> {
  const pdf = await fetchPdf(api, `/api/v1${path}/pdf`, key);
  expect(pdf.status).toBe(200);
  const pages = await pdfPages(pdf.bytes);
  expect(pages).toHaveLength(1);
  return pages[0]!;
}

describe('documents of a sale taxed by the buyer’s country', () => {
  it('a German reverse-charge invoice: the company’s details, Austria as the country of taxation, 0 %, the note; its credit note says the same', async () => {
    api.clock.set(T0);
    const { key } = await createBuyerCountryStore(api, 'Moth Books');
    const book = await createTaxedProduct(api, key, { name: 'Handbuch der Motten' });
    const order = await payBuyerSale(api, key, { lineItems: [{ price_id: book }], billing: AUSTRIAN_COMPANY, card: CARD_OF.AT, language: 'de' });
    const invoice = await getJson(key, `/invoices/${order.invoice_id}`);
    const details = { name: 'Anna Gruber', company: 'Gruber Verlag GmbH', address: { line1: 'Ringstraße 1', postal_code: '1010', city: 'Wien', country: 'AT' }, vat_id: 'ATU13585627' };
    expect(invoice).toMatchObject({
      customer_name: 'Anna Gruber',
      buyer_vat_id: 'ATU13585627',
      customer_details: details,
      tax_country: 'AT',
      tax_treatment: 'reverse_charge',
      tax_note: 'Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)',
      lines: [{ description: 'Handbuch der Motten', quantity: 1, unit_amount: 1999, amount_subtotal: 1999, tax_rate: 0, amount_tax: 0, amount_total: 1999 }],
      tax_breakdown: [{ rate: 0, amount_net: 1999, amount_tax: 0 }],
      amount_subtotal: 1999,
      amount_tax: 0,
      amount_total: 1999,
      language: 'de',
      issued_at: epoch(T0),
    });
    const issued = await getJson(key, `/events?type=invoice.issued&object_id=${invoice.id}`);
    expect(issued.data.map((event: { data: unknown }) => event.data)).toEqual([{ object: invoice }]);

    const page = await pdfText(key, `/invoices/${invoice.id}`);
    expect(page).toContain('VERKÄUFER Example Payments GmbH (demo) Musterstraße 1, 10115 Berlin, Germany (demo) USt-IdNr.: DE123456789 (demo)');
    expect(page).toContain('KÄUFER Anna Gruber Gruber Verlag GmbH Ringstraße 1 1010 Wien Österreich buyer@example.com USt-IdNr.: ATU13585627 Besteuerungsland: Österreich');
    expect(page).toContain('Handbuch der Motten 1 19,99 € 0 % 19,99 € 19,99 €');
    expect(page).toContain('0 % 19,99 € 0,00 €');
    expect(page).toContain('Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)');
    expect(page).not.toContain('Auf diesen Verkauf wurde keine Umsatzsteuer erhoben.');

    api.clock.advance(3600);
    const refund = await api.request('POST', '/api/v1/refunds', { key, body: { order_id: order.id, amount: 500 } });
    expect(refund.status).toBe(201);
    const note = await getJson(key, `/credit_notes/${refund.body.credit_note_id}`);
    expect(note).toMatchObject({
      customer_details: details,
      tax_country: 'AT',
      tax_treatment: 'reverse_charge',
      tax_note: 'Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)',
      lines: [{ description: `Teilerstattung zu Rechnung ${invoice.number}`, quantity: 1, unit_amount: 500, amount_subtotal: 500, tax_rate: 0, amount_tax: 0, amount_total: 500 }],
      amount_total: 500,
    });
    const notePage = await pdfText(key, `/credit_notes/${note.id}`);
    expect(notePage).toContain('KÄUFER Anna Gruber Gruber Verlag GmbH Ringstraße 1 1010 Wien Österreich buyer@example.com USt-IdNr.: ATU13585627 Besteuerungsland: Österreich');
    expect(notePage).toContain('Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)');
    // The line's description wraps after `TEST-` in its column.
    expect(notePage).toContain(`Teilerstattung zu Rechnung TEST- ${invoice.number.slice(5)} 1 5,00 € 0 % 5,00 € 5,00 €`);
  });

  it('an English invoice to a buyer outside the EU: no VAT on the inclusive price, the United States as the country of taxation, the note', async () => {
    api.clock.set(T0);
    const { key } = await createBuyerCountryStore(api);
    const course = await createTaxedProduct(api, key, { name: 'Video course', tax_inclusive: true });
    const order = await payBuyerSale(api, key, {
      lineItems: [{ price_id: course }],
      billing: { country: 'US', name: 'Grace Hopper', line1: '1 Navy Way', postalCode: '20350', city: 'Washington' },
      card: CARD_OF.US,
    });
    const invoice = await getJson(key, `/invoices/${order.invoice_id}`);
    expect(invoice).toMatchObject({
      customer_name: 'Grace Hopper',
      buyer_vat_id: null,
      customer_details: { name: 'Grace Hopper', company: null, address: { line1: '1 Navy Way', postal_code: '20350', city: 'Washington', country: 'US' }, vat_id: null },
      tax_country: 'US',
      tax_treatment: 'outside_eu',
      tax_note: 'Not subject to EU VAT: place of supply outside the EU',
      lines: [{ description: 'Video course', quantity: 1, unit_amount: 1999, amount_subtotal: 1999, tax_rate: 0, amount_tax: 0, amount_total: 1999 }],
      amount_subtotal: 1999,
      amount_tax: 0,
      amount_total: 1999,
      language: 'en',
    });
    const page = await pdfText(key, `/invoices/${invoice.id}`);
    expect(page).toContain('BUYER Grace Hopper 1 Navy Way 20350 Washington United States buyer@example.com Country of taxation: United States');
    expect(page).toContain('SELLER Example Payments GmbH (demo) Musterstraße 1, 10115 Berlin, Germany (demo) VAT ID: DE123456789 (demo)');
    expect(page).toContain('Video course 1 €19.99 0 % €19.99 €19.99');
    expect(page).toContain('Not subject to EU VAT: place of supply outside the EU');
  });

  it('an ebook to France at 5.5 % beside a standard line at 20 %: each line’s rate, VAT per rate, in English and German; a partial refund per rate', async () => {
    api.clock.set(T0);
    const { key } = await createBuyerCountryStore(api);
    const ebook = await createTaxedProduct(api, key, { name: 'Ebook', amount: 1999 }, 'ebook');
    const app = await createTaxedProduct(api, key, { name: 'App', amount: 1000 });
    const billing = { country: 'FR', name: 'Marie Curie', line1: '11 rue Pierre et Marie Curie', postalCode: '75005', city: 'Paris' };
    const english = await payBuyerSale(api, key, { lineItems: [{ price_id: ebook }, { price_id: app }], billing, card: CARD_OF.FR });
    const invoice = await getJson(key, `/invoices/${english.invoice_id}`);
    expect(invoice).toMatchObject({
      customer_details: { name: 'Marie Curie', company: null, address: { line1: '11 rue Pierre et Marie Curie', postal_code: '75005', city: 'Paris', country: 'FR' }, vat_id: null },
      tax_country: 'FR',
      tax_treatment: 'vat',
      tax_note: null,
      lines: [
        { description: 'Ebook', quantity: 1, unit_amount: 1999, amount_subtotal: 1999, tax_rate: 5.5, amount_tax: 110, amount_total: 2109 },
        { description: 'App', quantity: 1, unit_amount: 1000, amount_subtotal: 1000, tax_rate: 20, amount_tax: 200, amount_total: 1200 },
      ],
      tax_breakdown: [
        { rate: 5.5, amount_net: 1999, amount_tax: 110 },
        { rate: 20, amount_net: 1000, amount_tax: 200 },
      ],
      amount_subtotal: 2999,
      amount_tax: 310,
      amount_total: 3309,
    });
    const page = await pdfText(key, `/invoices/${invoice.id}`);
    expect(page).toContain('BUYER Marie Curie 11 rue Pierre et Marie Curie 75005 Paris France buyer@example.com Country of taxation: France');
    expect(page).toContain('Ebook 1 €19.99 5.5 % €19.99 €21.09');
    expect(page).toContain('App 1 €10.00 20 % €10.00 €12.00');
    expect(page).toContain('VAT BY RATE VAT Net VAT 5.5 % €19.99 €1.10 20 % €10.00 €2.00');
    expect(page).not.toContain('No VAT was charged');

    const german = await payBuyerSale(api, key, { lineItems: [{ price_id: ebook }, { price_id: app }], billing, card: CARD_OF.FR, language: 'de' });
    const germanPage = await pdfText(key, `/invoices/${german.invoice_id}`);
    expect(germanPage).toContain('KÄUFER Marie Curie 11 rue Pierre et Marie Curie 75005 Paris Frankreich buyer@example.com Besteuerungsland: Frankreich');
    expect(germanPage).toContain('Ebook 1 19,99 € 5,5 % 19,99 € 21,09 €');
    expect(germanPage).toContain('5,5 % 19,99 € 1,10 €');

    // 1000 of 3309: 5.5 % takes 2109/3309 of it (637.35 → 637), 20 % the rest (363).
    const refund = await api.request('POST', '/api/v1/refunds', { key, body: { order_id: german.id, amount: 1000 } });
    const note = await getJson(key, `/credit_notes/${refund.body.credit_note_id}`);
    const germanInvoice = await getJson(key, `/invoices/${german.invoice_id}`);
    expect(note).toMatchObject({
      tax_country: 'FR',
      tax_treatment: 'vat',
      tax_note: null,
      lines: [
        { description: `Teilerstattung zu Rechnung ${germanInvoice.number} (USt. 5,5 %)`, quantity: 1, unit_amount: 604, amount_subtotal: 604, tax_rate: 5.5, amount_tax: 33, amount_total: 637 },
        { description: `Teilerstattung zu Rechnung ${germanInvoice.number} (USt. 20 %)`, quantity: 1, unit_amount: 302, amount_subtotal: 302, tax_rate: 20, amount_tax: 61, amount_total: 363 },
      ],
      tax_breakdown: [
        { rate: 5.5, amount_net: 604, amount_tax: 33 },
        { rate: 20, amount_net: 302, amount_tax: 61 },
      ],
    });
    const notePage = await pdfText(key, `/credit_notes/${note.id}`);
    expect(notePage).toContain('Besteuerungsland: Frankreich');
    expect(notePage).toContain('5,5 % 6,04 € 0,33 €');
  });
});
