import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents } from '@/db/schema';
import { getOrderWithCard, parseEuros } from '@/server/dashboard/orders';
import { ApiError } from '@/server/errors';
import { createRefund } from '@/server/orders/refunds/service';
import { insertOrder, readOrder } from '../orders/fixtures';
import { createStore } from '../support/factories';
import { actingAs, formKey, person } from '../support/dashboard';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

const api = useTestApi();
const store = useTestStore(api);
const scope = () => ({ storeId: store.id, livemode: false });
const actor = person({ email: 'sam@example.com', ip: '203.0.113.9', path: '/dashboard/test/orders/x' }, 'support');

describe('dashboard orders', () => {
  it('7 refund amounts: euros with at most 2 decimals → exact integer cents; anything else refused', () => {
    expect(parseEuros('12.50')).toBe(1250);
    expect(parseEuros('12.5')).toBe(1250);
    expect(parseEuros(' 12 ')).toBe(1200);
    expect(parseEuros('0.29')).toBe(29);
    expect(parseEuros('1234567.89')).toBe(123456789);
    for (const text of ['12.505', '12,50', '-1', '1e3', '', '.5', '12.', '€5']) expect(parseEuros(text)).toBeUndefined();
  });

  it('7 the order with its card; an order of another store is resource_missing', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    await expect(getOrderWithCard(api.services.db, scope(), order.id)).resolves.toMatchObject({ order: { id: order.id }, card: { brand: 'visa', last4: '4242' } });
    const other = await createStore(api.services);
    const missing = await getOrderWithCard(api.services.db, { storeId: other.id, livemode: false }, order.id).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiError);
    expect((missing as ApiError).code).toBe('resource_missing');
  });

  it('7 a form submitted twice refunds once, audited once with user:<email>', async () => {
    const order = await insertOrder(api, store, { lines: [{ unitAmount: 1000 }] });
    const key = 'a'.repeat(32);
    const ctx = await actingAs(api.services, scope(), actor);
    const input = { order_id: order.id, amount: 500 };
    const first = await createRefund({ ...ctx, gateway: ctx.gateways.test }, scope(), input, formKey(key, input));
    const again = await createRefund({ ...ctx, gateway: ctx.gateways.test }, scope(), input, formKey(key, input));
    expect(again.id).toBe(first.id);
    expect((await readOrder(api, order.id)).amountRefunded).toBe(500);
    const audited = await api.services.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, 'refund.create')));
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ keyHint: 'user:sam@example.com', livemode: false, ip: actor.ip, method: 'POST', path: actor.path, details: { refund: first.id, order: order.id, amount: 500 } });
  });
});
