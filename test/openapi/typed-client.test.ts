/**
 * A merchant generates types from the committed document with openapi-typescript and writes
 * strict TypeScript against them, lists and events included, with no casts: it must compile,
 * and a wrong filter value or event field must not, nor a checkout session body without a mode.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '@/server/openapi/file';

const MERCHANT_SCRIPT = `
import type { components, paths, webhooks } from './api';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type OrderList = Json<paths['/orders']['get']['responses']['200']>;
type OrderQuery = NonNullable<paths['/orders']['get']['parameters']['query']>;
type EventList = Json<paths['/events']['get']['responses']['200']>;
type Event = components['schemas']['Event'];

export const paidOrders: OrderQuery = { status: 'paid', customer_email: 'buyer@example.com', created_gte: 1767225600, limit: 10 };
export const sessionsQuery: NonNullable<paths['/checkout/sessions']['get']['parameters']['query']> = { status: 'open', payment_status: 'unpaid' };
export const refundsQuery: NonNullable<paths['/refunds']['get']['parameters']['query']> = { order_id: 'ord_test_x', status: 'succeeded' };
export const portalQuery: NonNullable<paths['/portal/sessions']['get']['parameters']['query']> = { scope: 'customer', status: 'active' };
export const customersQuery: NonNullable<paths['/customers']['get']['parameters']['query']> = { email: 'buyer@example.com' };

export function revenue(list: OrderList): number {
  return list.data.reduce((sum, order) => sum + order.amount_total - order.amount_refunded, 0);
}

/** A webhook handler: the event type narrows the object it carries. */
export function handle(event: Event): string {
  switch (event.type) {
    case 'order.paid':
      return event.data.object.license_keys.join(',') + event.data.object.status;
    case 'checkout.session.completed':
      return event.data.object.payment_status;
    case 'product.updated':
      return Object.keys(event.data.previous_attributes).join(',') + event.data.object.name;
    case 'customer.deleted':
      return String(event.data.object.deleted);
    default:
      return event.type + String(event.sequence);
  }
}

export function follow(page: EventList): string | undefined {
  return page.data[0]?.id;
}

type OrderPaidPayload = Json<NonNullable<webhooks['order.paid']['post']>['requestBody']>;
export const paidType = (payload: OrderPaidPayload): 'order.paid' => payload.type;

/** Exactly one of price_id, line_items and amount: each mode compiles, a body without one does not. */
type CreateSession = NonNullable<paths['/checkout/sessions']['post']['requestBody']>['content']['application/json'];
export const priceMode: CreateSession = { price_id: 'price_test_x', quantity: 2, success_url: 'https://shop.example.com/thanks' };
export const cart: CreateSession = { line_items: [{ price_id: 'price_test_x', quantity: 2 }], cancel_url: 'https://shop.example.com/cart' };
export const amountMode: CreateSession = { amount: 4500, description: 'Consulting call, 30 minutes' };
// @ts-expect-error no mode
export const noMode: CreateSession = {};
// @ts-expect-error only the shared fields
export const sharedOnly: CreateSession = { success_url: 'https://shop.example.com/thanks', metadata: { cart_id: 'c1' } };
// @ts-expect-error amount mode needs a description
export const amountWithoutDescription: CreateSession = { amount: 4500 };
`;

const BROKEN_SCRIPT = `
import type { components, paths } from './api';
type OrderQuery = NonNullable<paths['/orders']['get']['parameters']['query']>;
export const wrongStatus: OrderQuery = { status: 'shipped' };
export function wrongField(event: components['schemas']['Event']): number {
  return event.type === 'customer.created' ? event.data.object.amount_total : 0;
}
`;

/** Both scripts in one program (one check of the generated types): each file's errors. */
function compile(directory: string, files: string[]): Record<string, string[]> {
  const program = ts.createProgram(
    files.map((file) => path.join(directory, file)),
    { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: false },
  );
  const errors: Record<string, string[]> = Object.fromEntries(files.map((file) => [file, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file ? path.basename(diagnostic.file.fileName) : 'global';
    (errors[file] ??= []).push(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  }
  return errors;
}

describe('a client generated from openapi/openapi.json with openapi-typescript', () => {
  it('types the lists, their filters, the events and the checkout modes: a merchant script compiles under strict, and mistakes do not', async () => {
    const document = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../..', OPENAPI_FILE), 'utf8'));
    const directory = mkdtempSync(path.join(tmpdir(), 'typed-client-'));
    writeFileSync(path.join(directory, 'api.ts'), astToString(await openapiTS(document)));
    writeFileSync(path.join(directory, 'merchant.ts'), MERCHANT_SCRIPT);
    writeFileSync(path.join(directory, 'broken.ts'), BROKEN_SCRIPT);

    const errors = compile(directory, ['merchant.ts', 'broken.ts']);
    // No error beyond the two of broken.ts; an unused @ts-expect-error would be one.
    expect(errors).toEqual({ 'merchant.ts': [], 'broken.ts': [expect.stringMatching(/"shipped"/), expect.stringMatching(/amount_total/)] });
  }, 180_000);
});
