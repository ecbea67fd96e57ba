import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { products } from '@/db/schema';
import { loadHostedReceipt } from '@/server/checkout/hosted/receipt';
import { receiptUrl } from '@/server/kit/links';
import { payCheckoutSession } from '@/server/payments/service';
import { attachFile } from '@/server/products/operator-service';
import { validCard } from '../payments/support';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';

/**
 * The receipt a checkout lands on, as proxy.ts and the page load it: its link works for 30 days
 * after the payment on the store's clock, and a refund in full leaves the refund on it but takes
 * the license key and the download links away.
 */
const api = useTestApi({ publicBaseUrl: 'https://pay.example.test' });
const DAY = 86_400;

async function paidReceipt() {
  const store = await createStore(api.services);
  const key = store.keys.sk_test;
  const created = await api.request('POST', '/api/v1/products', { key, body: { name: 'Moth atlas', amount: 3000 } });
  expect(created.status).toBe(201);
  // The operator's product:attach-license and product:attach-file.
  await api.services.db.update(products).set({ hasLicense: true }).where(eq(products.id, created.body.id));
  await attachFile({ db: api.services.db, clock: api.clock }, created.body.id, 'https://files.example.test/atlas.pdf');
  const session = await api.request('POST', '/api/v1/checkout/sessions', { key, body: { price_id: created.body.price_id, customer_email: 'reader@example.com' } });
  expect(session.status).toBe(201);
  expect(await payCheckoutSession(api.services, { sessionId: session.body.id, card: validCard() })).toMatchObject({ status: 'paid' });
  const signature = new URL(receiptUrl(api.services.config, session.body.id)).searchParams.get('signature')!;
  const load = () => loadHostedReceipt(api.services, { id: session.body.id, signature });
  const advance = async (seconds: number) => expect((await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds } })).status).toBe(200);
  return { key, orderId: session.body.order_id as string, load, advance };
}

describe('the receipt link', () => {
  it('works until 30 days after the payment on the store’s test clock, then answers like an invalid link', async () => {
    const { load, advance } = await paidReceipt();
    expect((await load()).state).toBe('paid');
    await advance(30 * DAY - 1);
    expect((await load()).state).toBe('paid');
    await advance(1);
    expect(await load()).toEqual({ state: 'invalid' });
  });

  it('after a refund in full: the refund shows, the license key and the download link do not', async () => {
    const { key, orderId, load } = await paidReceipt();
    const before = await load();
    expect(before.state === 'paid' && before.receipt).toMatchObject({
      amountRefunded: 0,
      licenseKeys: [expect.stringMatching(/^LK-/)],
      downloads: [{ description: 'Moth atlas', downloadCount: 0, downloadLimit: 20, url: expect.stringMatching(/^https:\/\/pay\.example\.test\/download\//) }],
    });
    const refund = await api.request('POST', '/api/v1/refunds', { key, body: { order_id: orderId } });
    expect(refund.body.status).toBe('succeeded');
    const after = await load();
    expect(after.state === 'paid' && after.receipt).toMatchObject({ amountTotal: 3000, amountRefunded: 3000, licenseKeys: [], downloads: [] });
  });
});
