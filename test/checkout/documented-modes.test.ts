/**
 * The OpenAPI document states the checkout session body as one object per mode (`oneOf`), while
 * the service validates with its own schema, whose refusals name the field and the fix. The two
 * must agree on which fields go together: every combination of the body's fields, each with a
 * valid value, is accepted by both or refused by both. The refusals themselves stay as they were.
 */
import { describe, expect, it } from 'vitest';
import { checkoutSessionModes, createCheckoutSessionInput } from '@/server/checkout/schemas';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { expectError, SESSIONS } from './api-support';

const VALID_VALUES: Record<string, unknown> = {
  price_id: 'price_test_documented',
  quantity: 2,
  line_items: [{ price_id: 'price_test_documented', quantity: 1 }],
  amount: 4500,
  description: 'Consulting call',
  success_url: 'https://shop.example.com/thanks',
  cancel_url: 'https://shop.example.com/cart',
  customer_email: 'ada@example.com',
  metadata: { cart_id: 'cart_1042' },
  expires_at: 1_795_660_325,
};
const FIELDS = Object.keys(VALID_VALUES);

describe('checkout session body: the document’s modes and the service agree', () => {
  it(`on all ${2 ** FIELDS.length} combinations of the ${FIELDS.length} fields`, () => {
    let accepted = 0;
    for (let mask = 0; mask < 2 ** FIELDS.length; mask++) {
      const body = Object.fromEntries(FIELDS.filter((_, bit) => mask & (1 << bit)).map((field) => [field, VALID_VALUES[field]]));
      const service = createCheckoutSessionInput.safeParse(body).success;
      expect(checkoutSessionModes.safeParse(body).success, JSON.stringify(body)).toBe(service);
      if (service) accepted++;
    }
    // Price mode: 2 (quantity or not) × 32 (the shared fields); line items: 32; amount: 32.
    expect(accepted).toBe(128);
  });
});

describe('POST /api/v1/checkout/sessions: the refusals the modes stand for', () => {
  const api = useTestApi();

  it('name the rule and the field, as before the document stated the modes', async () => {
    const { keys } = await createStore(api.services, { amountMode: true });
    const post = (body: unknown) => api.request('POST', SESSIONS, { key: keys.sk_test, body });
    const none = await post({ success_url: 'https://shop.example.com/thanks' });
    expectError(none, 400, 'parameter_invalid');
    expect(none.body.error.message).toBe('Send exactly one of `price_id`, `line_items` or `amount`.');
    const two = await post({ price_id: 'price_test_documented', amount: 4500, description: 'Consulting call' });
    expectError(two, 400, 'parameter_invalid', 'amount');
    expect(two.body.error.message).toBe('Send exactly one of `price_id`, `line_items` or `amount`, not `price_id` and `amount`.');
    const quantity = await post({ amount: 4500, description: 'Consulting call', quantity: 2 });
    expectError(quantity, 400, 'parameter_invalid', 'quantity');
    expect(quantity.body.error.message).toBe('`quantity` is for price mode only: give each line item its own `quantity`, or leave it out with `amount`.');
    const noDescription = await post({ amount: 4500 });
    expectError(noDescription, 400, 'parameter_invalid', 'description');
    expect(noDescription.body.error.message).toBe('`description` is required with `amount`: it tells the customer what they pay for.');
  });
});
