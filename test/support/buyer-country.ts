import { expect } from 'vitest';
import type { DocumentLanguage, TaxCategory } from '@/db/schema';
import { updateSessionBilling } from '@/server/checkout/buyer-tax';
import { payCheckoutSession } from '@/server/payments/service';
import { checkBilling, type BillingForm } from '@/server/vat/billing';
import { createStore } from './factories';
import type { TestApi } from './server';

/** Stores that tax by the buyer's country, and sales paid as their hosted checkout pays them. */

/** Test cards approved like 4242…, whose issuing country is digits 7–9 (ISO numeric). */
export const CARD_OF = { DE: '4000002760000016', FR: '4000002500000003', AT: '4000000400000008', IT: '4000003800000008', US: '4000008400000001' } as const;

/** A store in `buyer_country` mode. */
export async function createBuyerCountryStore(api: TestApi, name?: string) {
  const store = await createStore(api.services, { taxMode: 'buyer_country', ...(name === undefined ? {} : { name }) });
  return { ...store, key: store.keys.sk_test };
}

/** A product of the store's, in `category`; answers its price id. */
export async function createTaxedProduct(api: TestApi, key: string, body: Record<string, unknown>, category: TaxCategory = 'standard'): Promise<string> {
  const created = await api.request('POST', '/api/v1/products', { key, body: { amount: 1999, tax_category: category, ...body } });
  expect(created.status).toBe(201);
  return created.body.price_id;
}

export interface BuyerSale {
  /** The line items of the session. */
  lineItems: { price_id: string; quantity?: number }[];
  billing: Partial<BillingForm> & { country: string };
  card?: string;
  language?: DocumentLanguage;
}

/**
 * A checkout session created over the API and paid as its hosted page pays it: the billing
 * details taxed (as the page's `Update total` does), then the card charged for the total shown.
 * Answers the paid order as GET /orders/{id} reads it.
 */
export async function payBuyerSale(api: TestApi, key: string, sale: BuyerSale) {
  const created = await api.request('POST', '/api/v1/checkout/sessions', { key, body: { line_items: sale.lineItems, customer_email: 'buyer@example.com' } });
  expect(created.status).toBe(201);
  const form: BillingForm = { name: '', company: '', line1: '', postalCode: '', city: '', vatId: '', ...sale.billing };
  const taxed = await updateSessionBilling(api.services, created.body.id, form);
  if (taxed.kind !== 'taxed') throw new Error(`the billing details were not taxed: ${JSON.stringify(taxed)}`);
  const checked = await checkBilling(api.services.config, false, form);
  if (!checked.ok) throw new Error(`the billing details were refused: ${JSON.stringify(checked.errors)}`);
  const paid = await payCheckoutSession(api.services, {
    sessionId: created.body.id,
    card: { number: sale.card ?? '4242424242424242', expiry: '12/40', cvc: '123' },
    language: sale.language,
    billing: { checked: checked.billing, shownTotal: taxed.session.amountTotal },
  });
  expect(paid.status).toBe('paid');
  const order = await api.request('GET', `/api/v1/orders/${created.body.order_id}`, { key });
  expect(order.status).toBe(200);
  return order.body;
}
