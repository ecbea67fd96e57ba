import { beforeAll, describe, expect, it } from 'vitest';
import { loadHostedCheckout } from '@/server/checkout/hosted/page';
import { submitHostedPayment } from '@/server/checkout/hosted/submit';
import { payCheckoutSession } from '@/server/payments/service';
import { waiverText, WAIVER_FIELDS } from '@/server/orders/withdrawals/waiver';
import { epoch, T0 } from '../support/api';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

/**
 * The waiver of the right of withdrawal on the hosted checkout: offered only with a digital
 * product, given only by both checkboxes, stored on the order with the version of its wording.
 * test/browser/withdraw.test.ts ticks the boxes in Chromium.
 */
const api = useTestApi();
const store = useTestStore(api, { amountMode: true });
let ebook: { price_id: string };
let poster: { price_id: string };

beforeAll(async () => {
  ebook = (await api.request('POST', '/api/v1/products', { key: store.key, body: { name: 'E-book', amount: 900 } })).body;
  poster = (await api.request('POST', '/api/v1/products', { key: store.key, body: { name: 'Poster', amount: 1200, type: 'physical' } })).body;
});

async function createSession(body: Record<string, unknown>) {
  const response = await api.request('POST', '/api/v1/checkout/sessions', { key: store.key, body: { customer_email: 'reader@example.com', ...body } });
  expect(response.status).toBe(201);
  const url = new URL(response.body.url);
  return {
    id: response.body.id as string,
    orderId: response.body.order_id as string,
    link: { id: response.body.id as string, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! },
  };
}

async function pay(session: Awaited<ReturnType<typeof createSession>>, boxes: (keyof typeof WAIVER_FIELDS)[], cardNumber = '4242424242424242') {
  const form = new FormData();
  for (const [name, value] of Object.entries({ card_number: cardNumber, expiry: '12/30', cvc: '123' })) form.set(name, value);
  for (const box of boxes) form.set(WAIVER_FIELDS[box], 'yes');
  return submitHostedPayment(api.services, payCheckoutSession, { ...session.link, form });
}

const waiverOf = async (orderId: string) => (await api.request('GET', `/api/v1/orders/${orderId}`, { key: store.key })).body.withdrawal_waiver;

describe('the waiver of the right of withdrawal', () => {
  it('the page offers it only when a digital product is sold', async () => {
    const viewOf = async (body: Record<string, unknown>) => {
      const hosted = await loadHostedCheckout(api.services, (await createSession(body)).link);
      return hosted.state === 'open' && hosted.view.hasDigitalProduct;
    };
    expect(await viewOf({ price_id: ebook.price_id })).toBe(true);
    expect(await viewOf({ line_items: [{ price_id: poster.price_id }, { price_id: ebook.price_id }] })).toBe(true);
    expect(await viewOf({ price_id: poster.price_id })).toBe(false);
    expect(await viewOf({ amount: 500, description: 'Donation' })).toBe(false);
  });

  it('both boxes ticked: stored with the time of payment and the version of the wording, which reproduces both sentences', async () => {
    const session = await createSession({ price_id: ebook.price_id });
    api.clock.advance(30);
    expect((await pay(session, ['deliveryConsent', 'acknowledgement'])).kind).toBe('redirect');
    const waiver = await waiverOf(session.orderId);
    expect(waiver).toEqual({ accepted_at: epoch(T0) + 30, text_version: 'withdrawal-waiver-en-v1' });
    expect(waiverText(waiver.text_version)).toEqual({
      deliveryConsent: 'I agree that delivery starts before the withdrawal period ends',
      acknowledgement: 'I acknowledge that I thereby lose my right of withdrawal',
    });
    expect(waiverText('no-such-version')).toBeUndefined();
  });

  it.each([
    ['no box', []],
    ['the first box alone', ['deliveryConsent']],
    ['the second box alone', ['acknowledgement']],
  ] as const)('%s: no waiver', async (_, boxes) => {
    const session = await createSession({ price_id: ebook.price_id });
    expect((await pay(session, [...boxes])).kind).toBe('redirect');
    expect(await waiverOf(session.orderId)).toBeNull();
  });

  it('both boxes posted for an order without a digital product: no waiver', async () => {
    const session = await createSession({ price_id: poster.price_id });
    expect((await pay(session, ['deliveryConsent', 'acknowledgement'])).kind).toBe('redirect');
    expect(await waiverOf(session.orderId)).toBeNull();
  });

  it('the attempt that pays decides: boxes ticked on a declined try and left empty on the paying one give no waiver', async () => {
    const session = await createSession({ price_id: ebook.price_id });
    // A mistyped card number fails the attempt but leaves the session payable.
    expect((await pay(session, ['deliveryConsent', 'acknowledgement'], '4242424242424241')).kind).toBe('redirect');
    expect((await pay(session, [])).kind).toBe('redirect');
    expect(await waiverOf(session.orderId)).toBeNull();
  });
});
