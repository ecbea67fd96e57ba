import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { checkoutSessions, orderLines, orders } from '@/db/schema';
import { expectApiError } from '../http/helpers';
import { uniqueSku } from '../support/factories';
import type { TestApi } from '../support/server';

export const SESSIONS = '/api/v1/checkout/sessions';

/** A fixed, whole-second instant, so `created`/`expires_at` can be asserted exactly. */
export const T0 = new Date('2026-03-01T12:00:00.000Z');
export const epoch = (date: Date) => Math.floor(date.getTime() / 1000);
export const HOUR = 3600;

/** A product through the API (201 checked); returns its Product body. */
export async function createProduct(api: TestApi, key: string, body: Record<string, unknown> = {}) {
  const response = await api.request('POST', '/api/v1/products', { key, body: { name: 'Ebook', amount: 1999, sku: uniqueSku(), ...body } });
  expect(response.status).toBe(201);
  return response.body;
}

/** The error envelope of spec 7, with the field it blames (or none). */
export function expectError(response: { status: number; body: any; headers: Headers }, status: number, code: string, param?: string) {
  expectApiError(response, status, code);
  expect(response.body.error.param).toBe(param);
}

export async function readSessionRow(api: TestApi, id: string) {
  const [row] = await api.services.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
  return row;
}

export async function readOrder(api: TestApi, id: string) {
  const [order] = await api.services.db.select().from(orders).where(eq(orders.id, id));
  const lines = await api.services.db.select().from(orderLines).where(eq(orderLines.orderId, id)).orderBy(orderLines.position);
  return { order, lines };
}

/** A session's URL split into what a test asserts: path and the two query parameters. */
export function parseSessionUrl(url: string) {
  const parsed = new URL(url);
  return { origin: parsed.origin, path: parsed.pathname, expires: parsed.searchParams.get('expires'), signature: parsed.searchParams.get('signature') };
}
