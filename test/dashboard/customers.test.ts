import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { readCustomersQuery } from '@/app/dashboard/customers/query';
import { auditEvents } from '@/db/schema';
import { deleteCustomer, getCustomer } from '@/server/customers/service';
import { exportCustomersCsv } from '@/server/dashboard/csv';
import { customerDetail, listCustomerPage } from '@/server/dashboard/customers';
import { ApiError } from '@/server/errors';
import type { Scope } from '@/server/kit/scope';
import { createPortalSession, getPortalSession, revokePortalSession } from '@/server/portal/service';
import { seedCustomer, seedOrder, seedSubscription } from '../portal/factories';
import { T0 } from '../support/api';
import { createStore } from '../support/factories';
import { actingAs, formKey, person } from '../support/dashboard';
import { useTestApi } from '../support/server';

const api = useTestApi();
const seed = (secondsAgo = 0) => ({ db: api.services.db, now: new Date(T0.getTime() - secondsAgo * 1000) });
const test = (store: { id: string }) => ({ storeId: store.id, livemode: false });
const actor = person({ email: 'sam@example.com', ip: '203.0.113.9', path: '/dashboard/test/customers/x' }, 'support');
const acting = (on: Scope) => actingAs(api.services, on, actor);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ApiError);
  return (error as ApiError).code;
}

const audits = (storeId: string, action: string) =>
  api.services.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.storeId, storeId), eq(auditEvents.action, action)));

describe('dashboard customers: the list query', () => {
  it('7 `q`: a cus_ id jumps, a whole address is exact, anything shorter is the start of an e-mail, lower-cased; bad input is a message', () => {
    expect(readCustomersQuery({ q: 'cus_test_abc' })).toMatchObject({ customerId: 'cus_test_abc' });
    expect(readCustomersQuery({ q: ' Ada@Example.com ' }).filters).toEqual({ email: 'ada@example.com', email_prefix: undefined });
    expect(readCustomersQuery({ q: 'AdA' }).filters).toMatchObject({ email_prefix: 'ada' });
    expect(readCustomersQuery({ q: 'ada lovelace' }).problem).toBe('Search takes a customer id (cus_…), an e-mail address or its start.');
    expect(readCustomersQuery({ from: '2026-3-1' }).problem).toBe('Dates are days, YYYY-MM-DD.');
    expect(readCustomersQuery({ from: '2026-03-01', to: '2026-03-01' }).filters).toMatchObject({ created_gte: 1772323200, created_lte: 1772409599 });
  });
});

describe('dashboard customers: the list', () => {
  it('7 newest first, 25 a page on the keyset, this store and mode only, deleted ones left out; search by prefix or exact e-mail; a created range', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const made = [];
    for (let index = 0; index < 27; index += 1) made.push(await seedCustomer(seed(100 - index), store, { email: `buyer${String(index).padStart(2, '0')}@example.com` }));
    const gone = await seedCustomer(seed(1), store, { email: 'gone@example.com' });
    await deleteCustomer(await acting(test(store)), test(store), gone.id);
    await seedCustomer(seed(), store, { email: 'buyer99@example.com', livemode: true });
    await seedCustomer(seed(), other, { email: 'buyer98@example.com' });
    const newestFirst = made.map((customer) => customer.id).reverse();

    const first = await listCustomerPage(api.services.db, test(store), { limit: 25 });
    expect(first.data.map((customer) => customer.id)).toEqual(newestFirst.slice(0, 25));
    expect(first.hasMore).toBe(true);
    const second = await listCustomerPage(api.services.db, test(store), { limit: 25, starting_after: first.data.at(-1)!.id });
    expect(second).toEqual({
      data: [
        expect.objectContaining({ id: newestFirst[25], email: 'buyer01@example.com', name: null, livemode: false }),
        expect.objectContaining({ id: newestFirst[26], email: 'buyer00@example.com' }),
      ],
      hasMore: false,
    });
    expect(await codeOf(listCustomerPage(api.services.db, test(store), { limit: 25, starting_after: gone.id }))).toBe('resource_missing');

    const search = (q: string, extra: Record<string, string> = {}) =>
      listCustomerPage(api.services.db, test(store), { ...readCustomersQuery({ q, ...extra }).filters, limit: 25 }).then((page) => page.data.map((customer) => customer.email));
    expect(await search('BUYER0')).toEqual([
      'buyer09@example.com',
      'buyer08@example.com',
      'buyer07@example.com',
      'buyer06@example.com',
      'buyer05@example.com',
      'buyer04@example.com',
      'buyer03@example.com',
      'buyer02@example.com',
      'buyer01@example.com',
      'buyer00@example.com',
    ]);
    expect(await search('Buyer26@Example.com')).toEqual(['buyer26@example.com']);
    expect(await search('buyer2')).toHaveLength(7);
    // LIKE's wildcards match themselves.
    expect(await search('buyer_')).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect(await search('gone')).toEqual([]);
    expect(await search('', { from: '2001-01-01', to: '2001-01-02' })).toEqual([]);
    expect(await search('buyer26', { from: '2026-03-01', to: '2026-03-01' })).toEqual(['buyer26@example.com']);
  });
});

describe('dashboard customers: the detail and its actions', () => {
  it('7 the customer with their orders, subscriptions and portal links; another store or mode is resource_missing', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store, { email: 'ada@example.com', name: 'Ada' });
    const order = await seedOrder(seed(), store, { customer: ada, lines: [{ description: 'Print', unitAmount: 2450 }] });
    await seedOrder(seed(), store);
    const subscription = await seedSubscription(seed(), store, { customer: ada });
    const link = await createPortalSession(await acting(test(store)), test(store), { customer_id: ada.id }, formKey('a'.repeat(32), { customer_id: ada.id }));

    const detail = await customerDetail(api.services, test(store), ada.id);
    expect(detail.customer).toEqual({ id: ada.id, object: 'customer', livemode: false, email: 'ada@example.com', name: 'Ada', created: T0.getTime() / 1000 });
    expect(detail.orders.data.map((row) => row.id)).toEqual([order.id]);
    expect(detail.subscriptions.data.map((row) => row.id)).toEqual([subscription.id]);
    expect(detail.portalSessions).toEqual([expect.objectContaining({ id: link.id, status: 'active', scope: 'customer', customer_id: ada.id })]);
    expect(detail.portalSessions[0]).not.toHaveProperty('url');

    const other = await createStore(api.services);
    expect(await codeOf(customerDetail(api.services, test(other), ada.id))).toBe('resource_missing');
    expect(await codeOf(customerDetail(api.services, { storeId: store.id, livemode: true }, ada.id))).toBe('resource_missing');
  });

  it('7 a portal link: one per form key, audited once with user:<email>, its URL answered to the create', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store, { email: 'ada@example.com' });
    const key = 'b'.repeat(32);
    const created = await createPortalSession(await acting(test(store)), test(store), { customer_id: ada.id }, formKey(key, { customer_id: ada.id }));
    const again = await createPortalSession(await acting(test(store)), test(store), { customer_id: ada.id }, formKey(key, { customer_id: ada.id }));
    expect(again.id).toBe(created.id);
    expect((await customerDetail(api.services, test(store), ada.id)).portalSessions).toHaveLength(1);
    const audited = await audits(store.id, 'portal_session.create');
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ keyHint: 'user:sam@example.com', livemode: false, ip: actor.ip, method: 'POST', path: actor.path, details: { portal_session: created.id, customer: ada.id } });
    expect(created.url).toMatch(new RegExp(`^${api.services.config.publicBaseUrl}/portal/`));
  });

  it('7 revoking a portal link: revoked at once, audited once; another customer’s link is resource_missing', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store, { email: 'ada@example.com' });
    const bob = await seedCustomer(seed(), store, { email: 'bob@example.com' });
    const link = await createPortalSession(await acting(test(store)), test(store), { customer_id: ada.id }, formKey('c'.repeat(32), { customer_id: ada.id }));
    expect(await codeOf(revokePortalSession(await acting(test(store)), test(store), link.id, bob.id))).toBe('resource_missing');
    expect((await revokePortalSession(await acting(test(store)), test(store), link.id, ada.id)).status).toBe('revoked');
    expect((await revokePortalSession(await acting(test(store)), test(store), link.id, ada.id)).status).toBe('revoked');
    expect(await audits(store.id, 'portal_session.revoke')).toEqual([expect.objectContaining({ keyHint: 'user:sam@example.com', details: { portal_session: link.id, customer: ada.id } })]);
  });

  it('7 deleting a customer: gone from the API, their portal links revoked, audited with user:<email>; twice is resource_missing', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store, { email: 'ada@example.com' });
    const link = await createPortalSession(await acting(test(store)), test(store), { customer_id: ada.id }, formKey('d'.repeat(32), { customer_id: ada.id }));
    await deleteCustomer(await acting(test(store)), test(store), ada.id);
    expect(await codeOf(getCustomer(api.services.db, test(store), ada.id))).toBe('resource_missing');
    expect((await getPortalSession({ db: api.services.db, clock: api.services.clock }, test(store), link.id)).status).toBe('revoked');
    expect(await audits(store.id, 'customer.delete')).toEqual([expect.objectContaining({ keyHint: 'user:sam@example.com', livemode: false, method: 'POST', details: { customer: ada.id } })]);
    expect(await codeOf(deleteCustomer(await acting(test(store)), test(store), ada.id))).toBe('resource_missing');
    expect(await audits(store.id, 'customer.delete')).toHaveLength(1);
  });
});

describe('dashboard customers: customers.csv', () => {
  it('7 the list’s filters, the header, a formula-like e-mail neutralised', async () => {
    const store = await createStore(api.services);
    const formula = await seedCustomer(seed(10), store, { email: '=cmd@example.com', name: '+Ada, "Countess"' });
    await seedCustomer(seed(), store, { email: 'zed@example.com' });
    const chunks: string[] = [];
    for await (const chunk of exportCustomersCsv(api.services, test(store), readCustomersQuery({ q: '=' }).filters)) chunks.push(chunk);
    expect(chunks.join('')).toBe(`id,created,email,name\r\n${formula.id},2026-03-01T11:59:50Z,'=cmd@example.com,"'+Ada, ""Countess"""\r\n`);
  });
});
