import { asc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { Database } from '@/db/client';
import { orderLines, orders, stores, type DocumentLanguage } from '@/db/schema';
import { storeCode } from '@/server/invoices/numbering';
import { submitHostedPayment } from '@/server/checkout/hosted/submit';
import { customerNameOf, issueOrderInvoices, newInvoiceId } from '@/server/invoices/issue';
import { payCheckoutSession } from '@/server/payments/service';
import { seedOrder, type SeedOrder } from '../portal/factories';
import type { TestApi } from '../support/server';

/** Paying on the hosted page, reading documents back, and PDFs parsed back to their text. */

export const APPROVED = '4242 4242 4242 4242';

export function hostedForm(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  return data;
}

/** POST /checkout/sessions with `body`; the session and its signed link's parts. */
export async function createSession(api: TestApi, key: string, body: Record<string, unknown>) {
  const response = await api.request('POST', '/api/v1/checkout/sessions', { key, body });
  expect(response.status).toBe(201);
  const url = new URL(response.body.url);
  return { ...response.body, link: { id: response.body.id as string, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! } };
}

/** The hosted checkout form posted as a customer would, in `language`. */
export function submitCheckout(api: TestApi, session: { link: { id: string; expires: string; signature: string } }, fields: Record<string, string>, language?: DocumentLanguage) {
  return submitHostedPayment(api.services, payCheckoutSession, { ...session.link, form: hostedForm({ card_number: APPROVED, expiry: '12/30', cvc: '123', ...fields }), language });
}

/** A session of `body` paid on the hosted page; answers the paid order as the API reads it. */
export async function payCheckout(api: TestApi, key: string, body: Record<string, unknown>, fields: Record<string, string> = {}, language?: DocumentLanguage) {
  const session = await createSession(api, key, { customer_email: 'buyer@example.com', ...body });
  const outcome = await submitCheckout(api, session, fields, language);
  expect(outcome).toMatchObject({ kind: 'redirect' });
  const order = await api.request('GET', `/api/v1/orders/${session.order_id}`, { key });
  expect(order.body.status).toBe('paid');
  return order.body;
}

/**
 * A paid order written straight to the tables and its invoice issued by the code a payment runs
 * (for live mode, which the hosted page cannot pay without an acquirer).
 */
export async function seedInvoicedOrder(api: TestApi, store: { id: string }, input: SeedOrder = {}) {
  const order = await seedOrder({ db: api.services.db, now: api.clock.now() }, store, input);
  return api.services.db.transaction(async (tx) => {
    const [row] = await tx.select().from(orders).where(eq(orders.id, order.id)).for('update');
    const times = { now: api.clock.now(), wallNow: api.clock.now() };
    const [invoiced] = await tx
      .update(orders)
      .set({ invoiceId: newInvoiceId(row!.livemode) })
      .where(eq(orders.id, order.id))
      .returning();
    const lines = await tx.select().from(orderLines).where(eq(orderLines.orderId, order.id)).orderBy(asc(orderLines.position));
    const [invoice] = await issueOrderInvoices(tx, { config: api.services.config }, [
      {
        order: { ...invoiced!, customerEmail: invoiced!.customerEmail ?? 'buyer@example.com' },
        lines,
        customerName: await customerNameOf(tx, invoiced!, invoiced!.customerId),
        subscriptionChargeId: null,
        suppliedFrom: invoiced!.paidAt!,
        suppliedUntil: invoiced!.paidAt!,
        times,
      },
    ]);
    return { order, invoice: invoice! };
  });
}

/** GET of a document's PDF: status, headers and bytes. */
export async function fetchPdf(api: TestApi, path: string, key: string) {
  const response = await fetch(`${api.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** The text of each page of a PDF, whitespace (non-breaking spaces included) folded to single spaces. */
export async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, disableFontFace: true }).promise;
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const page = await pdf.getPage(number);
    const content = await page.getTextContent();
    pages.push(
      content.items
        .map((item) => ('str' in item ? item.str : ''))
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim(),
    );
  }
  await pdf.destroy();
  return pages;
}

/** The store's part of its document numbers (`INV-<code>-000001`). */
export async function storeCodeOf(db: Database, storeId: string): Promise<string> {
  const [store] = await db.select({ number: stores.number }).from(stores).where(eq(stores.id, storeId));
  return storeCode(store!.number);
}
