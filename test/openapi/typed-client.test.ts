/**
 * A merchant generates types from the committed document with openapi-typescript and writes
 * strict TypeScript against them, lists and events included, with no casts: it must compile,
 * and a wrong filter value or event field must not.
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
`;

const BROKEN_SCRIPT = `
import type { components, paths } from './api';
type OrderQuery = NonNullable<paths['/orders']['get']['parameters']['query']>;
export const wrongStatus: OrderQuery = { status: 'shipped' };
export function wrongField(event: components['schemas']['Event']): number {
  return event.type === 'customer.created' ? event.data.object.amount_total : 0;
}
`;

function compile(directory: string, file: string): string[] {
  const program = ts.createProgram([path.join(directory, file)], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: false,
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('a client generated from openapi/openapi.json with openapi-typescript', () => {
  it('types the lists, their filters and the events: a merchant script compiles under strict, and mistakes do not', async () => {
    const document = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../..', OPENAPI_FILE), 'utf8'));
    const directory = mkdtempSync(path.join(tmpdir(), 'typed-client-'));
    writeFileSync(path.join(directory, 'api.ts'), astToString(await openapiTS(document)));
    writeFileSync(path.join(directory, 'merchant.ts'), MERCHANT_SCRIPT);
    writeFileSync(path.join(directory, 'broken.ts'), BROKEN_SCRIPT);

    expect(compile(directory, 'merchant.ts')).toEqual([]);
    const errors = compile(directory, 'broken.ts');
    expect(errors).toHaveLength(2);
    expect(errors.join('\n')).toMatch(/"shipped"/);
    expect(errors.join('\n')).toMatch(/amount_total/);
  }, 60_000);
});
