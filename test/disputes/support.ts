import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, expect } from 'vitest';
import { answerHostedPayment } from '@/server/checkout/hosted/submit';
import type { Services } from '@/server/context';
import { serveDownload } from '@/server/downloads/service';
import { payCheckoutSession } from '@/server/payments/service';
import { attachFile, attachLicense } from '@/server/products/operator-service';
import { answerHostedSubscription } from '@/server/subscriptions/hosted';
import { createProduct } from '../support/api';
import { serveFetchHandler, type TestApi } from '../support/server';
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

/** The bytes every delivery file of these tests holds. */
export const DELIVERY_FILE = Buffer.from('%PDF-1.7 moth atlas\n'.repeat(50));

/**
 * The hosted forms' posts (checkout and subscription) as their routes answer them, a host of
 * delivery files, and `/download/{line}`, each over HTTP on a loopback port.
 */
export async function serveCustomerSide(services: Services) {
  const forms = await serveFetchHandler(async (request) => {
    const [, page, id, action] = new URL(request.url).pathname.split('/');
    if (page === 'checkout' && action === 'pay') return answerHostedPayment(services, payCheckoutSession, request, id!);
    if (page === 'subscribe' && action === 'pay') return answerHostedSubscription(services, request, id!);
    return new Response('not found', { status: 404 });
  });
  const host = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(DELIVERY_FILE.length) });
    res.end(DELIVERY_FILE);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const downloads = await serveFetchHandler(async (request) => {
    const url = new URL(request.url);
    return serveDownload(services, decodeURIComponent(url.pathname.replace(/^\/download\//, '')), {
      expires: url.searchParams.get('expires') ?? undefined,
      signature: url.searchParams.get('signature') ?? undefined,
    });
  });
  return {
    fileUrl: `http://127.0.0.1:${(host.address() as AddressInfo).port}/files/atlas.pdf`,
    /** A hosted page's form posted as a browser sends it, with `headers` (its user agent, its client address). */
    pay(hostedUrl: string, card: string, headers: Record<string, string> = {}, fields: Record<string, string> = {}) {
      const url = new URL(hostedUrl);
      return fetch(`${forms.baseUrl}${url.pathname}/pay${url.search}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ card_number: card, expiry: '12/30', cvc: '123', ...fields }),
        redirect: 'manual',
      });
    },
    /** A download link followed as a browser follows it, against the test's server instead of PUBLIC_BASE_URL. */
    download(link: string) {
      const url = new URL(link);
      return fetch(`${downloads.baseUrl}${url.pathname}${url.search}`, { redirect: 'manual' });
    },
    async close() {
      await Promise.all([forms.close(), downloads.close(), new Promise((resolve) => host.close(resolve))]);
    },
  };
}

/** A digital product (10.00 EUR, 19% VAT on top) with license keys and a delivery file at `fileUrl`, as the operator's product:attach-license and product:attach-file leave it. */
export async function licensedProductWithFile(api: TestApi, key: string, name: string, fileUrl: string) {
  const product = await createProduct(api, key, { name, amount: 1000, tax_rate: 19 });
  const deps = { db: api.services.db, clock: api.clock };
  await attachLicense(deps, product.id);
  await attachFile(deps, product.id, fileUrl);
  return product;
}
