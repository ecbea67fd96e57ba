import { beforeAll, expect } from 'vitest';
import { createProduct } from '../support/api';
import type { TestApi } from '../support/server';
import { APPROVED, payCheckout } from '../invoices/support';

/** The two test cards that open a dispute of the payment they make. */
export const DISPUTE_CARDS = {
  fraudulent: '4000 0000 0000 0259',
  productNotReceived: '4000 0000 0000 2685',
} as const;

export const DISPUTES = '/api/v1/disputes';
export const DISPUTE_ID = /^dp_test_[0-9A-Za-z]{24}$/;

/** A product of `amount` cents at 19% VAT on top, paid on the hosted page with `card`: the order as the API reads it. */
export async function paidWith(api: TestApi, key: string, card: string, amount = 1000) {
  const product = await createProduct(api, key, {
    name: 'Ebook',
    amount,
    tax_rate: 19,
  });
  return payCheckout(api, key, { price_id: product.price_id }, { card_number: card });
}

/** The order's dispute, read through the API. */
export async function disputeOf(api: TestApi, key: string, orderId: string) {
  const order = await api.request('GET', `/api/v1/orders/${orderId}`, { key });
  expect(order.body.dispute_id).toMatch(DISPUTE_ID);
  const dispute = await api.request('GET', `${DISPUTES}/${order.body.dispute_id}`, { key });
  expect(dispute.status).toBe(200);
  return dispute.body;
}

/**
 * Live mode with the simulator standing in for the acquirer, for the file: live orders are paid
 * (on the hosted page) and refunded through the real payment code, which has no acquirer here.
 */
export function useSimulatedAcquirer(api: TestApi) {
  beforeAll(() => {
    api.services.gateways.live = api.services.gateways.test;
  });
}

/** A product of `amount` cents at 19% VAT on top, paid on the hosted page with 4242…: the order as the API reads it. */
export const paidOrder = (api: TestApi, key: string, amount = 1000) => paidWith(api, key, APPROVED, amount);

/** The entries of a cause as `[type, amount, description]`, newest first. */
export const entryRows = (entries: { type: string; amount: number; description: string }[]) => entries.map((entry) => [entry.type, entry.amount, entry.description]);
