import { expect } from 'vitest';
import { createProduct } from '../support/api';
import { createStore } from '../support/factories';
import { listOf } from '../support/lists';
import type { TestApi } from '../support/server';
import { payCheckout } from '../invoices/support';

/** The ledger through HTTP: a store, a paid order of it, and its entries as listed. */

export async function newStore(api: TestApi, flags: { taxCalculation?: boolean; subscriptions?: boolean } = {}) {
  const store = await createStore(api.services, { taxCalculation: true, ...flags });
  return { id: store.id, key: store.keys.sk_test, liveKey: store.keys.sk_live };
}

/** A product of `amount` cents at 19% VAT on top, paid on the hosted page: the order and its invoice. */
export async function paidOrder(api: TestApi, key: string, amount = 1000, taxRate = 19) {
  const product = await createProduct(api, key, { name: 'Ebook', amount, tax_rate: taxRate });
  const order = await payCheckout(api, key, { price_id: product.price_id });
  const invoice = (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key })).body;
  return { order, invoice };
}

/** Every entry of a cause, newest first. */
export async function entriesOf(api: TestApi, key: string, sourceId: string) {
  const response = await listOf(api, '/api/v1/balance_transactions', key, `source_id=${sourceId}`);
  expect(response.status).toBe(200);
  return response.body.data;
}

export async function balanceOf(api: TestApi, key: string) {
  const response = await api.request('GET', '/api/v1/balance', { key });
  expect(response.status).toBe(200);
  return response.body;
}
