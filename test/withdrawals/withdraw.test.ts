import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withdrawals } from '@/db/schema';
import { checkWithdrawalForm, declareWithdrawalForm, openDraft, openReceipt } from '@/server/orders/withdrawals/hosted';
import { listWithdrawalRequests } from '@/server/orders/withdrawals/service';
import { epoch, insertOrder, T0 } from '../orders/fixtures';
import { createStore } from '../support/factories';
import { serveFetchHandler, useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

/**
 * The /withdraw forms' two posts over HTTP against a real database: only a paid order of the
 * address typed is recorded, every other declaration is answered alike, a full refund settles it,
 * and cross-site posts and an address over its allowance are refused. The pages themselves are
 * driven in Chromium by test/browser/withdraw.test.ts.
 */
const ORIGIN = 'https://pay.example.test';
const LIMIT = 6;
const api = useTestApi({
  publicBaseUrl: ORIGIN,
  rateLimits: { perIp: 100_000, perKey: 100_000, productWritesPerKey: 100_000, windowSeconds: 1, withdrawPerIp: LIMIT, withdrawWindowSeconds: 3600 },
});
const store = useTestStore(api);
const DAY = 86_400;

let forms: { baseUrl: string; close(): Promise<void> };
let address = 0;

beforeAll(async () => {
  forms = await serveFetchHandler(async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/withdraw/check') return checkWithdrawalForm(api.services, request);
    if (pathname === '/withdraw/declare') return declareWithdrawalForm(api.services, request);
    return new Response('not found', { status: 404 });
  });
});
afterAll(() => forms.close());

/** Each test speaks from an address of its own, so the allowance per address is its own too. */
const newAddress = () => `198.51.100.${++address}`;

function post(path: string, fields: Record<string, string>, options: { ip: string; origin?: string | null }) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': options.ip };
  if (options.origin !== null) headers.origin = options.origin ?? ORIGIN;
  return fetch(`${forms.baseUrl}${path}`, { method: 'POST', headers, body: new URLSearchParams(fields), redirect: 'manual' });
}

interface Typed {
  order: string;
  email: string;
  name: string;
  reason?: string;
}

/** Both steps as a browser posts them: the check, then the confirmation with the draft it sealed. */
async function withdraw(typed: Typed, ip = newAddress()) {
  const checked = await post('/withdraw/check', { reason: '', ...typed }, { ip });
  expect(checked.status).toBe(303);
  const confirm = new URL(checked.headers.get('location')!, ORIGIN);
  expect(confirm.pathname).toBe('/withdraw/confirm');
  const draft = confirm.searchParams.get('draft')!;
  const declared = await post('/withdraw/declare', { draft }, { ip });
  expect(declared.status).toBe(303);
  expect(declared.headers.get('cache-control')).toBe('no-store');
  const received = new URL(declared.headers.get('location')!, ORIGIN);
  expect(received.pathname).toBe('/withdraw/received');
  expect([...received.searchParams.keys()]).toEqual(['receipt']);
  return { draft, receipt: openReceipt(api.services.config, received.searchParams.get('receipt')!) };
}

const order = (id: string) => api.request('GET', `/api/v1/orders/${id}`, { key: store.key });
const withdrawalEvents = async () => (await api.request('GET', '/api/v1/events?type=order.withdrawal_requested&limit=100', { key: store.key })).body.data as any[];

describe('a declaration that names a paid order of its address', () => {
  it('is recorded on the order with its 14-day refund deadline and the event, in one go', async () => {
    const paid = await insertOrder(api, store, { customerEmail: 'ada@example.com' });
    const before = (await withdrawalEvents()).length;
    api.clock.advance(90);
    const { receipt } = await withdraw({ order: paid.id, email: 'Ada@Example.com ', name: 'Ada Lovelace', reason: 'Changed my mind' });
    expect(receipt).toEqual({ orderId: paid.id, declaredAt: epoch(T0) + 90 });

    const response = await order(paid.id);
    expect(response.status).toBe(200);
    expect(response.body.withdrawal).toEqual({ status: 'requested', requested_at: epoch(T0) + 90, refund_due_by: epoch(T0) + 90 + 14 * DAY, reason: 'Changed my mind' });
    expect(response.body.withdrawal_waiver).toBeNull();
    const events = await withdrawalEvents();
    expect(events.length).toBe(before + 1);
    expect(events[0]).toMatchObject({ type: 'order.withdrawal_requested', created: epoch(T0) + 90, livemode: false, data: { object: response.body } });

    const [row] = await api.services.db.select().from(withdrawals).where(eq(withdrawals.orderId, paid.id));
    expect(row).toMatchObject({ customerName: 'Ada Lovelace', customerEmail: 'Ada@Example.com', storeId: store.id, livemode: false });
  });

  it('an empty reason is stored as none', async () => {
    const paid = await insertOrder(api, store, { customerEmail: 'no-reason@example.com' });
    await withdraw({ order: paid.id, email: 'no-reason@example.com', name: 'N. O. Reason' });
    expect((await order(paid.id)).body.withdrawal).toEqual({ status: 'requested', requested_at: epoch(T0), refund_due_by: epoch(T0) + 14 * DAY, reason: null });
  });

  it('a second declaration keeps the first and its deadline, and no second event is recorded', async () => {
    const paid = await insertOrder(api, store, { customerEmail: 'twice@example.com' });
    await withdraw({ order: paid.id, email: 'twice@example.com', name: 'Twice', reason: 'first' });
    const events = (await withdrawalEvents()).length;
    api.clock.advance(3 * DAY);
    const again = await withdraw({ order: paid.id, email: 'twice@example.com', name: 'Twice', reason: 'second' });
    expect(again.receipt).toEqual({ orderId: paid.id, declaredAt: epoch(T0) + 3 * DAY });
    expect((await order(paid.id)).body.withdrawal).toEqual({ status: 'requested', requested_at: epoch(T0), refund_due_by: epoch(T0) + 14 * DAY, reason: 'first' });
    expect((await withdrawalEvents()).length).toBe(events);
  });

  it('dates on the store’s test clock in test mode', async () => {
    const other = await createStore(api.services);
    const paid = await insertOrder(api, other, { customerEmail: 'clock@example.com' });
    const advanced = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: other.keys.sk_test, body: { seconds: 5 * DAY } });
    expect(advanced.status).toBe(200);
    await withdraw({ order: paid.id, email: 'clock@example.com', name: 'Clock' });
    const { withdrawal } = (await api.request('GET', `/api/v1/orders/${paid.id}`, { key: other.keys.sk_test })).body;
    expect(withdrawal).toEqual({ status: 'requested', requested_at: epoch(T0) + 5 * DAY, refund_due_by: epoch(T0) + 19 * DAY, reason: null });
  });
});

describe('refunds', () => {
  it('a partial refund leaves the withdrawal requested; the refund of the rest sets it refunded', async () => {
    const paid = await insertOrder(api, store, { customerEmail: 'refund@example.com', lines: [{ unitAmount: 3000 }] });
    await withdraw({ order: paid.id, email: 'refund@example.com', name: 'Refund' });
    const partial = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: paid.id, amount: 1000 } });
    expect(partial.status).toBe(201);
    expect((await order(paid.id)).body.withdrawal.status).toBe('requested');
    const rest = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: paid.id } });
    expect(rest.status).toBe(201);
    expect(rest.body.status).toBe('succeeded');
    const refunded = (await order(paid.id)).body;
    expect(refunded.status).toBe('refunded');
    expect(refunded.withdrawal).toEqual({ status: 'refunded', requested_at: epoch(T0), refund_due_by: epoch(T0) + 14 * DAY, reason: null });
    const event = (await api.request('GET', `/api/v1/events?type=order.refunded&object_id=${paid.id}`, { key: store.key })).body.data[0];
    expect(event.data.object.withdrawal.status).toBe('refunded');
  });

  it('a declaration on an order already refunded in full is recorded as refunded, answered like any other', async () => {
    const paid = await insertOrder(api, store, { customerEmail: 'late@example.com' });
    expect((await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: paid.id } })).status).toBe(201);
    const { receipt } = await withdraw({ order: paid.id, email: 'late@example.com', name: 'Late' });
    expect(receipt).toEqual({ orderId: paid.id, declaredAt: epoch(T0) });
    expect((await order(paid.id)).body.withdrawal).toEqual({ status: 'refunded', requested_at: epoch(T0), refund_due_by: epoch(T0) + 14 * DAY, reason: null });
  });
});

describe('no oracle: every other declaration is answered alike and leaves no trace', () => {
  it('an unknown order, another address and a pending order: the same answer, nothing recorded', async () => {
    const paid = await insertOrder(api, store, { customerEmail: 'owner@example.com' });
    const pending = await insertOrder(api, store, { status: 'pending', customerEmail: 'owner@example.com' });
    const before = (await withdrawalEvents()).length;
    const unknown = `ord_test_${'x'.repeat(24)}`;
    const answers = [
      await withdraw({ order: unknown, email: 'owner@example.com', name: 'Mallory' }),
      await withdraw({ order: paid.id, email: 'mallory@example.com', name: 'Mallory' }),
      await withdraw({ order: pending.id, email: 'owner@example.com', name: 'Owner' }),
    ];
    expect(answers.map((answer) => answer.receipt)).toEqual([
      { orderId: unknown, declaredAt: epoch(T0) },
      { orderId: paid.id, declaredAt: epoch(T0) },
      { orderId: pending.id, declaredAt: epoch(T0) },
    ]);
    expect((await order(paid.id)).body.withdrawal).toBeNull();
    expect((await order(pending.id)).body.withdrawal).toBeNull();
    expect((await withdrawalEvents()).length).toBe(before);
  });
});

describe('form checks', () => {
  it.each([
    ['order', { order: 'order 42', email: 'a@example.com', name: 'A', reason: '' }, 'orderId'],
    ['email', { order: 'ord_test_abc', email: 'not-an-address', name: 'A', reason: '' }, 'email'],
    ['name', { order: 'ord_test_abc', email: 'a@example.com', name: '  ', reason: '' }, 'name'],
    ['reason', { order: 'ord_test_abc', email: 'a@example.com', name: 'A', reason: 'r'.repeat(2001) }, 'reason'],
  ])('a bad %s goes back to the form with what was typed and the field named', async (_, typed, field) => {
    const response = await post('/withdraw/check', typed, { ip: newAddress() });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!, ORIGIN);
    expect(location.pathname).toBe('/withdraw');
    expect(location.searchParams.get('error')).toBe(field);
    expect(location.hash).toBe('#form-error');
    const draft = openDraft(api.services.config, location.searchParams.get('draft')!, epoch(api.clock.now()));
    expect(draft).toEqual({ state: 'open', form: { orderId: typed.order, email: typed.email, name: typed.name.trim(), reason: typed.reason } });
  });

  it('a huge field is cut to one past its limit: still refused, and the link back stays short', async () => {
    const response = await post('/withdraw/check', { order: 'ord_test_abc', email: 'a@example.com', name: 'N'.repeat(100_000), reason: '' }, { ip: newAddress() });
    expect(response.status).toBe(303);
    const location = response.headers.get('location')!;
    expect(location.length).toBeLessThan(1000);
    const draft = openDraft(api.services.config, new URL(location, ORIGIN).searchParams.get('draft')!, epoch(api.clock.now()));
    expect(draft).toEqual({ state: 'open', form: { orderId: 'ord_test_abc', email: 'a@example.com', name: 'N'.repeat(201), reason: '' } });
  });

  it('a draft past its hour, or one that does not open, declares nothing and goes back to the form', async () => {
    const paid = await insertOrder(api, store, { customerEmail: 'slow@example.com' });
    const ip = newAddress();
    const checked = await post('/withdraw/check', { order: paid.id, email: 'slow@example.com', name: 'Slow', reason: '' }, { ip });
    const draft = new URL(checked.headers.get('location')!, ORIGIN).searchParams.get('draft')!;
    api.clock.advance(3601);
    for (const sent of [draft, `${draft.slice(0, -2)}AA`, 'garbage']) {
      const declared = await post('/withdraw/declare', { draft: sent }, { ip });
      expect(declared.status).toBe(303);
      expect(declared.headers.get('location')).toBe('/withdraw?error=expired#form-error');
    }
    expect((await order(paid.id)).body.withdrawal).toBeNull();
  });
});

describe('refusals', () => {
  it('a post from another site, or without Origin, is refused with 403 before anything is read', async () => {
    const paid = await insertOrder(api, store, { customerEmail: 'csrf@example.com' });
    const ip = newAddress();
    const checked = await post('/withdraw/check', { order: paid.id, email: 'csrf@example.com', name: 'C', reason: '' }, { ip });
    const draft = new URL(checked.headers.get('location')!, ORIGIN).searchParams.get('draft')!;
    for (const origin of ['https://evil.example', null, 'null']) {
      for (const path of ['/withdraw/check', '/withdraw/declare']) {
        const refused = await post(path, { draft, order: paid.id, email: 'csrf@example.com', name: 'C' }, { ip, origin });
        expect(refused.status).toBe(403);
        expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(refused.headers.get('content-security-policy')).toMatch(/script-src 'none'/);
        expect(await refused.text()).toContain('This form was sent from another site');
      }
    }
    expect((await order(paid.id)).body.withdrawal).toBeNull();
  });

  it(`an address gets ${LIMIT} posts per window, then 429 with Retry-After; another address is unaffected`, async () => {
    const ip = newAddress();
    const typed = { order: 'ord_test_limit', email: 'limit@example.com', name: 'L', reason: '' };
    for (let n = 0; n < LIMIT; n++) expect((await post('/withdraw/check', typed, { ip })).status).toBe(303);
    const refused = await post('/withdraw/check', typed, { ip });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Too many requests');
    expect((await post('/withdraw/declare', { draft: 'x' }, { ip })).status).toBe(429);
    expect((await post('/withdraw/check', typed, { ip: newAddress() })).status).toBe(303);
  });
});

describe('the dashboard’s list of requests', () => {
  it('the scope’s requests only, newest first, with deadline, amounts and waiver, page by page', async () => {
    const other = await createStore(api.services);
    const ours: { id: string }[] = [];
    for (const [index, email] of ['list-1@example.com', 'list-2@example.com', 'list-3@example.com'].entries()) {
      const paid = await insertOrder(api, other, { customerEmail: email, lines: [{ unitAmount: 1000 * (index + 1) }] });
      api.clock.set(new Date(T0.getTime() + index * 60_000));
      await withdraw({ order: paid.id, email, name: `Buyer ${index + 1}`, reason: index === 0 ? 'Too slow' : '' });
      ours.push(paid);
    }
    const scope = { storeId: other.id, livemode: false };
    const first = await listWithdrawalRequests(api.services.db, scope, { limit: 2 });
    expect(first.hasMore).toBe(true);
    expect(first.rows).toEqual([
      {
        orderId: ours[2]!.id,
        status: 'requested',
        customerName: 'Buyer 3',
        customerEmail: 'list-3@example.com',
        reason: null,
        requestedAt: new Date(T0.getTime() + 120_000),
        refundDueBy: new Date(T0.getTime() + 120_000 + 14 * DAY * 1000),
        amountTotal: 3000,
        amountRefunded: 0,
        waived: false,
      },
      {
        orderId: ours[1]!.id,
        status: 'requested',
        customerName: 'Buyer 2',
        customerEmail: 'list-2@example.com',
        reason: null,
        requestedAt: new Date(T0.getTime() + 60_000),
        refundDueBy: new Date(T0.getTime() + 60_000 + 14 * DAY * 1000),
        amountTotal: 2000,
        amountRefunded: 0,
        waived: false,
      },
    ]);
    const second = await listWithdrawalRequests(api.services.db, scope, { limit: 2, startingAfter: ours[1]!.id });
    expect(second).toEqual({ hasMore: false, rows: [expect.objectContaining({ orderId: ours[0]!.id, reason: 'Too slow', customerName: 'Buyer 1' })] });
    expect((await listWithdrawalRequests(api.services.db, { storeId: other.id, livemode: true }, { limit: 10 })).rows).toEqual([]);
    const mine = await listWithdrawalRequests(api.services.db, { storeId: store.id, livemode: false }, { limit: 100 });
    expect(mine.rows.some((row) => ours.some((order) => order.id === row.orderId))).toBe(false);
  });
});
