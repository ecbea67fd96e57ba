import { describe, expect, it } from 'vitest';
import { renderInvoicePdf } from '@/server/invoices/pdf';
import type { InvoiceRow } from '@/server/invoices/view';
import { pdfPages } from './support';

/** The PDF rendered from a stored invoice alone: the withdrawal waiver when given, letters of every EU language. */
const T0 = new Date('2026-03-01T12:00:00Z');
const invoice: InvoiceRow = {
  id: 'in_live_x',
  storeId: 'acct_x',
  livemode: true,
  number: 'INV-7KQ2MX-000042',
  orderId: 'ord_live_x',
  subscriptionId: null,
  subscriptionChargeId: null,
  customerId: 'cus_live_x',
  customerEmail: 'lukasz@example.pl',
  customerName: 'Łukasz Żółć',
  buyerVatId: 'PL5210088067',
  sellerName: 'Paywise B.V.',
  sellerAddress: 'Keizersgracht 1, 1015 CJ Amsterdam, Netherlands',
  sellerVatId: 'NL004495445B01',
  sellerEmail: 'billing@paywise.example',
  storeName: 'Cloud Notes',
  lines: [{ description: 'Ebook „Ćma”', quantity: 1, unit_amount: 1190, amount_subtotal: 1000, tax_rate: 19, amount_tax: 190, amount_total: 1190 }],
  taxBreakdown: [{ rate: 19, amount_net: 1000, amount_tax: 190 }],
  amountSubtotal: 1000,
  amountTax: 190,
  amountTotal: 1190,
  language: 'en',
  withdrawalWaiver: { accepted_at: Math.floor(T0.getTime() / 1000), text_version: '2026-06-19' },
  suppliedFrom: T0,
  suppliedUntil: T0,
  createdAt: T0,
  customerDetails: null,
  taxCountry: null,
  taxTreatment: null,
  taxNote: null,
  amountDiscount: 0,
  discount: null,
};

describe('invoice PDF', () => {
  it('the withdrawal waiver, with its date and text version; Polish letters kept; a live invoice has no test notice', async () => {
    const [page] = await pdfPages(await renderInvoicePdf(invoice));
    expect(page).toContain(
      'The customer agreed on 1 March 2026 that delivery of the digital content starts before the withdrawal period ends, and acknowledged losing the right of withdrawal thereby (text version 2026-06-19).',
    );
    expect(page).toContain('BUYER Łukasz Żółć lukasz@example.pl VAT ID: PL5210088067');
    expect(page).toContain('Ebook „Ćma” 1 €11.90 19 % €10.00 €11.90');
    expect(page).toContain('Paywise B.V. · Keizersgracht 1, 1015 CJ Amsterdam, Netherlands · VAT ID: NL004495445B01 · billing@paywise.example');
    expect(page).not.toContain('TEST MODE');
  });

  it('in German, and without a waiver no waiver line', async () => {
    const [german] = await pdfPages(await renderInvoicePdf({ ...invoice, language: 'de' }));
    expect(german).toContain('Der Kunde hat am 1. März 2026 zugestimmt');
    expect(german).toContain('(Textfassung 2026-06-19)');
    const [none] = await pdfPages(await renderInvoicePdf({ ...invoice, withdrawalWaiver: null }));
    expect(none).not.toContain('withdrawal');
  });

  it('an id of the widest letters stays whole on its line', async () => {
    const [order, subscription] = [`ord_test_${'W'.repeat(24)}`, `sub_test_${'W'.repeat(24)}`];
    const [page] = await pdfPages(await renderInvoicePdf({ ...invoice, orderId: order, subscriptionId: subscription, language: 'de' }));
    expect(page).toContain(`Bestellung ${order}`);
    expect(page).toContain(`Abonnement ${subscription}`);
  });
});
