import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHostedReceipt } from '@/server/checkout/hosted/receipt';
import { receiptUrl } from '@/server/kit/links';
import { openPortal } from '@/server/portal/page';
import { advanceClock, DAY } from '../billing/support';
import { createdPortal, tokenOf } from '../portal/support';
import { T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { DISPUTE_CARDS, disputeOf, licensedProductWithFile, serveCustomerSide } from './support';

/**
 * A lost dispute takes back what the order delivered, as a refund in full does: its download
 * links go from the receipt and the portal, a link handed out before answers 410, and its license
 * keys validate as revoked. While the dispute is open, both keep working.
 */
const ORIGIN = 'https://pay.example.test';
const api = useTestApi({ publicBaseUrl: ORIGIN });
let customer: Awaited<ReturnType<typeof serveCustomerSide>>;

beforeAll(async () => {
  customer = await serveCustomerSide(api.services);
});
afterAll(() => customer.close());

describe('a dispute lost at its deadline', () => {
  it('takes the downloads and the license key away: the receipt and the portal show neither, an old link answers 410, the key validates as revoked', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services);
    const key = store.keys.sk_test;
    const product = await licensedProductWithFile(api, key, 'Moth atlas', customer.fileUrl);
    const session = await api.request('POST', '/api/v1/checkout/sessions', { key, body: { price_id: product.price_id, customer_email: 'reader@example.com' } });
    expect(session.status).toBe(201);
    expect((await customer.pay(session.body.url, DISPUTE_CARDS.fraudulent)).status).toBe(303);
    const orderId: string = session.body.order_id;
    const dispute = await disputeOf(api, key, orderId);
    expect(dispute).toMatchObject({ status: 'needs_response', evidence_due_by: Math.floor(T0.getTime() / 1000) + 7 * DAY });
    const [licenseKey] = (await api.request('GET', `/api/v1/orders/${orderId}`, { key })).body.license_keys;
    const signature = new URL(receiptUrl(api.services.config, session.body.id)).searchParams.get('signature')!;
    const receipt = async () => {
      const loaded = await loadHostedReceipt(api.services, { id: session.body.id, signature });
      expect(loaded.state).toBe('paid');
      return loaded.state === 'paid' ? loaded.receipt : undefined;
    };
    const portalOrder = async () => (await openPortal(api.services, tokenOf((await createdPortal(api, key, { order_id: orderId })).url)))!.orders[0]!;
    const validate = async () => (await api.request('POST', '/api/v1/licenses/validate', { key, body: { key: licenseKey } })).body;

    // Open, half a day before the deadline: delivered as before.
    await advanceClock(api, key, 6.5 * DAY);
    expect(await receipt()).toMatchObject({ licenseKeys: [licenseKey], downloads: [{ description: 'Moth atlas', downloadCount: 0 }] });
    const open = await portalOrder();
    expect(open).toMatchObject({ licenseKeys: [licenseKey], downloads: [{ description: 'Moth atlas', downloadCount: 0 }] });
    const link = open.downloads[0]!.url!;
    const served = await customer.download(link);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).length).toBeGreaterThan(0);
    expect(await validate()).toMatchObject({ valid: true, status: 'active', reason: null });

    // The deadline passes without evidence: lost, while the link handed out is still within its day.
    await advanceClock(api, key, 0.5 * DAY);
    expect((await api.request('GET', `/api/v1/disputes/${dispute.id}`, { key })).body.status).toBe('lost');
    expect(await receipt()).toMatchObject({ licenseKeys: [], downloads: [] });
    expect(await portalOrder()).toMatchObject({ licenseKeys: [], downloads: [] });
    const refused = await customer.download(link);
    expect(refused.status).toBe(410);
    const notice = await refused.text();
    expect(notice).toContain('This download is no longer available');
    expect(notice).toContain('The order was refunded or its payment reversed, so its files are no longer delivered.');
    expect(await validate()).toMatchObject({ valid: false, status: 'revoked', reason: 'revoked', order_id: orderId, revoked_at: Math.floor(T0.getTime() / 1000) + 7 * DAY });
  });
});
