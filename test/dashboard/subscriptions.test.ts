import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { utcTime } from '@/app/dashboard/format';
import { readSubscriptionsQuery } from '@/app/dashboard/subscriptions/query';
import { SubscriptionSummary } from '@/app/dashboard/subscriptions/summary';
import { epochSeconds } from '@/server/clock';
import { declareCancellation } from '@/server/subscriptions/cancellation';
import { auditEvents, subscriptions } from '@/db/schema';
import { exportSubscriptionsCsv } from '@/server/dashboard/csv';
import { listSubscriptionPage, subscriptionDetail } from '@/server/dashboard/subscriptions';
import type { ApiError } from '@/server/errors';
import type { Scope } from '@/server/kit/scope';
import { cancelSubscription, getSubscription, updateSubscription } from '@/server/subscriptions/service';
import { seedCustomer, seedSubscription } from '../portal/factories';
import { epoch, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { actingAs, person } from '../support/dashboard';
import { useTestApi } from '../support/server';
import { createSubscription } from '../support/subscriptions';

const api = useTestApi();
const seed = (secondsAgo = 0) => ({ db: api.services.db, now: new Date(T0.getTime() - secondsAgo * 1000) });
const test = (store: { id: string }) => ({ storeId: store.id, livemode: false });
const actor = person({ email: 'sam@example.com', ip: '203.0.113.9', path: '/dashboard/test/subscriptions/x' }, 'support');
const acting = async (on: Scope) => {
  const ctx = await actingAs(api.services, on, actor);
  return { ...ctx, gateway: ctx.gateways.test };
};
const audits = (storeId: string, action: string) =>
  api.services.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.storeId, storeId), eq(auditEvents.action, action)));

describe('dashboard subscriptions: the list query', () => {
  it('7 status, customer (a cus_ id or an e-mail) and a created range; bad input is a message', () => {
    expect(readSubscriptionsQuery({ status: 'past_due', customer: 'Ada@Example.com', from: '2026-03-01', to: '2026-03-02' }).filters).toEqual({
      status: 'past_due',
      customer_email: 'Ada@Example.com',
      created_gte: 1772323200,
      created_lte: 1772495999,
      customer_id: undefined,
    });
    expect(readSubscriptionsQuery({ status: 'all', customer: 'cus_test_abc' }).filters).toMatchObject({ customer_id: 'cus_test_abc', status: undefined });
    expect(readSubscriptionsQuery({ customer: 'ada' }).problem).toBe('Customer takes a customer id (cus_…) or an e-mail address.');
    expect(readSubscriptionsQuery({ status: 'paid' }).problem).toBe('Choose a status from the list.');
    expect(readSubscriptionsQuery({ to: 'yesterday' }).problem).toBe('Dates are days, YYYY-MM-DD.');
  });
});

describe('dashboard subscriptions: the list and the detail', () => {
  it('7 newest first on the keyset, filtered by status, customer id, customer e-mail and created range; this store and mode only', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const ada = await seedCustomer(seed(), store, { email: 'ada@example.com' });
    const active = await seedSubscription(seed(60), store, { customer: ada, payments: [{ status: 'succeeded', ageSeconds: 100 }] });
    const pastDue = await seedSubscription(seed(), store, { status: 'past_due', payments: [{ status: 'declined', ageSeconds: 50 }] });
    await seedSubscription(seed(), store, { livemode: true });
    await seedSubscription(seed(), other, { customer: ada });
    const list = (query: Record<string, string>, extra: { starting_after?: string; limit?: number } = {}) =>
      listSubscriptionPage(api.services.db, test(store), { ...readSubscriptionsQuery(query).filters, limit: extra.limit ?? 25, starting_after: extra.starting_after });

    const all = await list({});
    expect(all.data.map((row) => row.id)).toEqual([pastDue.id, active.id]);
    const first = await list({}, { limit: 1 });
    expect(first).toMatchObject({ data: [{ id: pastDue.id }], hasMore: true });
    expect((await list({}, { limit: 1, starting_after: pastDue.id })).data.map((row) => row.id)).toEqual([active.id]);
    expect((await list({ status: 'past_due' })).data.map((row) => row.id)).toEqual([pastDue.id]);
    expect((await list({ customer: ada.id })).data.map((row) => row.id)).toEqual([active.id]);
    expect((await list({ customer: 'ADA@example.com' })).data.map((row) => row.id)).toEqual([active.id]);
    expect((await list({ from: '2001-01-01', to: '2001-01-31' })).data).toEqual([]);
  });

  it('7 the detail: the subscription, its plan and every payment attempt latest first with its failure reason; another store is resource_missing', async () => {
    const store = await createStore(api.services);
    const seeded = await seedSubscription(seed(), store, {
      status: 'past_due',
      planName: 'Moth club',
      payments: [
        { status: 'succeeded', ageSeconds: 3600 },
        { status: 'declined', ageSeconds: 60, card: { brand: 'mastercard', last4: '0341' } },
      ],
    });
    const detail = await subscriptionDetail(api.services.db, test(store), seeded.id);
    expect(detail).toMatchObject({ plan_name: 'Moth club', payments_made: 1, cancel_reason: null, subscription: { id: seeded.id, status: 'past_due', amount: 990, interval: 'month' } });
    expect(detail.attempts).toEqual([
      expect.objectContaining({
        cycle: 2,
        attempt: 0,
        amount: 990,
        status: 'declined',
        failure_code: 'card_declined',
        card: { brand: 'mastercard', last4: '0341' },
        settled_at: T0.getTime() / 1000 - 60,
      }),
      expect.objectContaining({ cycle: 1, attempt: 0, amount: 990, status: 'succeeded', failure_code: null, card: { brand: 'visa', last4: '4242' } }),
    ]);
    const other = await createStore(api.services);
    const missing = await subscriptionDetail(api.services.db, test(other), seeded.id).catch((error: unknown) => error);
    expect((missing as ApiError).code).toBe('resource_missing');
  });
});

describe('dashboard subscriptions: the summary', () => {
  /** The summary's facts as the page shows them, label → text. */
  const facts = (html: string) => Object.fromEntries([...html.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map(([, label, value]) => [label!, value!.replace(/<[^>]+>/g, '')]));

  it('12 the card it is charged on; a declared cancellation (when, type, reason) and the end it scheduled instead of the next billing', async () => {
    const store = await createStore(api.services, { subscriptions: true });
    const subscription = await createSubscription(api.services, store.id);
    const before = facts(renderToStaticMarkup(createElement(SubscriptionSummary, { base: '/dashboard/test', detail: await subscriptionDetail(api.services.db, test(store), subscription.id) })));
    expect(before).toMatchObject({ Card: 'Visa ending in 4242', 'Next billing': utcTime(epochSeconds(subscription.nextBillingAt)) });
    expect(Object.keys(before)).not.toContain('Ends on');
    expect(Object.keys(before)).not.toContain('Cancellation declared');

    api.clock.set(new Date(T0.getTime() + 3600_000));
    await declareCancellation(
      { db: api.services.db, clock: api.clock, gateways: api.services.gateways, config: api.services.config },
      { email: 'ADA@example.com', number: subscription.id, name: 'Ada', reason: 'Moving abroad', cancelAt: 'asap', language: 'en' },
      { kind: 'customer', request: { ip: '203.0.113.7', method: 'POST', path: '/cancel/declare' } },
    );
    const after = facts(renderToStaticMarkup(createElement(SubscriptionSummary, { base: '/dashboard/test', detail: await subscriptionDetail(api.services.db, test(store), subscription.id) })));
    expect(after).toMatchObject({
      Status: 'active',
      Card: 'Visa ending in 4242',
      'Next billing': '—',
      'Ends on': utcTime(epochSeconds(subscription.currentPeriodEnd)),
      'Cancellation declared': utcTime(epoch(T0) + 3600),
      'Cancellation type': 'Extraordinary (as soon as possible): to end it sooner, cancel it below',
      'Customer’s reason': 'Moving abroad',
      Canceled: '—',
    });
  });
});

describe('dashboard subscriptions: a scheduled plan change and the credit', () => {
  const facts = (html: string) => Object.fromEntries([...html.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map(([, label, value]) => [label!, value!.replace(/<[^>]+>/g, '')]));

  it('13 `Scheduled change` (plan, price, from when) while one waits, `Credit` always', async () => {
    const store = await createStore(api.services, { subscriptions: true });
    const subscription = await createSubscription(api.services, store.id);
    const summary = async () =>
      facts(renderToStaticMarkup(createElement(SubscriptionSummary, { base: '/dashboard/test', detail: await subscriptionDetail(api.services.db, test(store), subscription.id) })));
    const before = await summary();
    expect(before).toMatchObject({ Credit: '€0.00' });
    expect(Object.keys(before)).not.toContain('Scheduled change');
    const effectiveAt = epochSeconds(subscription.currentPeriodEnd);
    await api.services.db
      .update(subscriptions)
      .set({
        creditBalance: 1250,
        pendingChange: {
          price_id: null,
          product_id: null,
          plan_name: 'Team',
          amount: 4900,
          interval: 'month',
          interval_count: 3,
          tax_category: 'standard',
          tax_inclusive: true,
          effective_at: effectiveAt,
        },
      })
      .where(eq(subscriptions.id, subscription.id));
    expect(await summary()).toMatchObject({ 'Scheduled change': `Team: €49.00 / 3 months from ${utcTime(effectiveAt)}`, Credit: '€12.50' });
  });
});

describe('dashboard subscriptions: a trial and a discount', () => {
  const facts = (html: string) => Object.fromEntries([...html.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map(([, label, value]) => [label!, value!.replace(/<[^>]+>/g, '')]));

  it('14 `Trial` from its start to its end, `Discount` with until when (an amount forever: without), the status trialing', async () => {
    const store = await createStore(api.services, { subscriptions: true });
    const subscription = await createSubscription(api.services, store.id);
    const trialEnd = new Date(T0.getTime() + 14 * 86400_000);
    const terms = {
      coupon: 'cpn_test_x',
      promotion_code: null,
      label: 'Spring',
      name: 'Spring',
      percent_off: 15,
      amount_off: null,
      duration: 'once' as const,
      duration_in_months: null,
      applies_to: null,
    };
    await api.services.db.update(subscriptions).set({ status: 'trialing', trialStart: T0, trialEnd, discount: terms, discountEnd: trialEnd }).where(eq(subscriptions.id, subscription.id));
    const shown = facts(renderToStaticMarkup(createElement(SubscriptionSummary, { base: '/dashboard/test', detail: await subscriptionDetail(api.services.db, test(store), subscription.id) })));
    expect(shown).toMatchObject({ Status: 'trialing', Trial: `${utcTime(epoch(T0))} – ${utcTime(epoch(trialEnd))}`, Discount: `15% off until ${utcTime(epoch(trialEnd))}` });
    await api.services.db
      .update(subscriptions)
      .set({ discount: { ...terms, percent_off: null, amount_off: 300, duration: 'forever' }, discountEnd: null })
      .where(eq(subscriptions.id, subscription.id));
    expect(facts(renderToStaticMarkup(createElement(SubscriptionSummary, { base: '/dashboard/test', detail: await subscriptionDetail(api.services.db, test(store), subscription.id) })))).toMatchObject(
      {
        Discount: '€3.00 off',
      },
    );
  });
});

describe('dashboard subscriptions: cancel and metadata', () => {
  it('7 a cancel posted twice cancels once, with the reason, audited once with user:<email>', async () => {
    const store = await createStore(api.services, { subscriptions: true });
    const subscription = await createSubscription(api.services, store.id);
    const first = await cancelSubscription(await acting(test(store)), test(store), subscription.id, 'Asked by phone');
    const again = await cancelSubscription(await acting(test(store)), test(store), subscription.id, 'Asked by phone');
    expect(first).toMatchObject({ status: 'canceled', canceled_at: expect.any(Number) });
    expect(again).toEqual(first);
    expect((await subscriptionDetail(api.services.db, test(store), subscription.id)).cancel_reason).toBe('Asked by phone');
    expect(await audits(store.id, 'subscription.cancel')).toEqual([
      expect.objectContaining({
        keyHint: 'user:sam@example.com',
        livemode: false,
        ip: actor.ip,
        method: 'POST',
        path: actor.path,
        details: { subscription: subscription.id, previous_status: 'active', reason: 'Asked by phone' },
      }),
    ]);
  });

  it('7 metadata replaced whole, audited with user:<email>', async () => {
    const store = await createStore(api.services, { subscriptions: true });
    const subscription = await createSubscription(api.services, store.id, { metadata: { order: 'A-17' } });
    const updated = await updateSubscription(await acting(test(store)), test(store), subscription.id, { ticket: 'T-9', note: '=1+1' });
    expect(updated.metadata).toEqual({ ticket: 'T-9', note: '=1+1' });
    expect((await getSubscription(api.services, test(store), subscription.id)).metadata).toEqual({ ticket: 'T-9', note: '=1+1' });
    expect(await audits(store.id, 'subscription.update')).toEqual([expect.objectContaining({ keyHint: 'user:sam@example.com', details: { subscription: subscription.id, fields: ['metadata'] } })]);
  });
});

describe('dashboard subscriptions: subscriptions.csv', () => {
  it('7 the list’s filters, the header, a formula-like customer e-mail neutralised', async () => {
    const store = await createStore(api.services);
    const formula = await seedCustomer(seed(), store, { email: '=cmd@example.com' });
    const kept = await seedSubscription(seed(), store, { customer: formula, planName: '@Pro' });
    await seedSubscription(seed(), store);
    const chunks: string[] = [];
    for await (const chunk of exportSubscriptionsCsv(api.services, test(store), readSubscriptionsQuery({ customer: formula.id }).filters)) chunks.push(chunk);
    const [header, row, end] = chunks.join('').split('\r\n');
    expect(header).toBe('id,created,status,customer_email,plan_name,amount,currency,interval,interval_count,current_period_end,canceled_at');
    expect(row).toBe(`${kept.id},2026-01-30T12:00:00Z,active,'=cmd@example.com,'@Pro,990,eur,month,1,2026-03-31T12:00:00Z,`);
    expect(end).toBe('');
  });
});
