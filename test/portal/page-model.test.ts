import { eq } from 'drizzle-orm';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SubscriptionCard } from '@/app/portal/parts';
import { subscriptions } from '@/db/schema';
import { formattersFor } from '@/server/kit/locale';
import { checkPaymentMethodLink } from '@/server/kit/links';
import { openPortal, portalLinkStore } from '@/server/portal/page';
import { epoch, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';
import { seedCustomer, seedOrder, seedSubscription } from './factories';
import { createdPortal, seedOf, SESSIONS, tokenOf } from './support';

/**
 * The read model behind the portal page (server/portal/page.ts), which proxy.ts and the
 * page call: what each scope holds, and that it holds nothing of anyone else. The page itself is
 * driven in Chromium by test/browser/portal.test.ts.
 */
const api = useTestApi({ publicBaseUrl: 'https://pay.example.test' });
const store = useTestStore(api, { name: 'Moth Books' });
const deps = () => ({ db: api.services.db, clock: api.clock, config: api.services.config });

describe('what each scope holds', () => {
  it('customer scope: that customer’s paid orders (newest first) and subscriptions only; not a second customer of the store, not another store’s customer', async () => {
    const seed = seedOf(api);
    const ada = await seedCustomer(seed, store, { email: 'ada@example.com' });
    const bob = await seedCustomer(seed, store, { email: 'bob@example.com' });
    const other = await createStore(api.services);
    const stranger = await seedCustomer(seed, other, { email: 'ada@example.com' });
    const older = await seedOrder(seed, store, { customer: ada, ageSeconds: 86400, lines: [{ description: 'Atlas', unitAmount: 4000, amountTax: 760, licenseKeys: 1 }], refunds: [1000] });
    const newer = await seedOrder(seed, store, { customer: ada, lines: [{ description: 'Field guide', unitAmount: 1250, quantity: 2 }] });
    await seedOrder(seed, store, { customer: ada, status: 'pending' });
    await seedOrder(seed, store, { customer: bob, lines: [{ description: 'Bob’s book', unitAmount: 999 }] });
    await seedOrder(seed, other, { customer: stranger, lines: [{ description: 'Stranger’s book', unitAmount: 777 }] });
    await seedSubscription(seed, store, { customer: ada, planName: 'Moth club', payments: [{ status: 'succeeded', ageSeconds: 3600 }] });
    await seedSubscription(seed, store, { customer: bob, planName: 'Bob’s club' });
    await seedSubscription(seed, other, { customer: stranger, planName: 'Stranger’s club' });

    const session = await createdPortal(api, store.key, { customer_id: ada.id });
    const page = await openPortal(deps(), tokenOf(session.url));
    expect(page).toMatchObject({ storeName: 'Moth Books', livemode: false, scope: 'customer', expiresAt: session.expires_at });
    expect(page!.orders.map((order) => order.id)).toEqual([newer.id, older.id]);
    expect(page!.orders[1]).toEqual({
      id: older.id,
      status: 'partially_refunded',
      created: epoch(T0) - 86400,
      paidAt: epoch(T0) - 86400,
      lines: [{ description: 'Atlas', quantity: 1, unitAmount: 4000, amountTotal: 4760 }],
      amountSubtotal: 4000,
      amountTax: 760,
      amountTotal: 4760,
      amountRefunded: 1000,
      tax: { rates: [19], inclusive: false },
      card: { brand: 'visa', last4: '4242' },
      refunds: [{ amount: 1000, status: 'succeeded', created: epoch(T0), creditNoteId: null }],
      licenseKeys: older.licenseKeys,
      downloads: [],
      invoiceId: null,
    });
    expect(page!.subscriptions.map((subscription) => subscription.planName)).toEqual(['Moth club']);
    const text = JSON.stringify(page);
    for (const foreign of ['Bob', 'Stranger', 'bob@example.com', 'pi_seed', 'rec_seed', stranger.id, bob.id]) expect(text).not.toContain(foreign);
  });

  it('order scope: that order only, with amounts, tax, payment and refunds', async () => {
    const seed = seedOf(api);
    const customer = await seedCustomer(seed, store);
    const order = await seedOrder(seed, store, { customer, lines: [{ description: 'Atlas', unitAmount: 4000, amountTax: 760 }], refunds: [4760] });
    await seedOrder(seed, store, { customer, lines: [{ description: 'Another order', unitAmount: 100 }] });
    const session = await createdPortal(api, store.key, { order_id: order.id });
    const page = await openPortal(deps(), tokenOf(session.url));
    expect(page!.scope).toBe('order');
    expect(page!.subscriptions).toEqual([]);
    expect(page!.orders).toHaveLength(1);
    expect(page!.orders[0]).toMatchObject({ id: order.id, status: 'refunded', amountTax: 760, amountTotal: 4760, amountRefunded: 4760 });
  });

  it('subscription scope: plan, status, next billing and every payment attempt, newest first', async () => {
    const seed = seedOf(api);
    const customer = await seedCustomer(seed, store);
    const subscription = await seedSubscription(seed, store, {
      customer,
      planName: 'Moth club',
      status: 'past_due',
      nextBillingInSeconds: 86400,
      payments: [
        { status: 'succeeded', ageSeconds: 60 * 86400 },
        { status: 'declined', ageSeconds: 30 * 86400, card: { brand: 'mastercard', last4: '4444' } },
      ],
    });
    await seedOrder(seed, store, { customer });
    const session = await createdPortal(api, store.key, { subscription_id: subscription.id });
    const page = await openPortal(deps(), tokenOf(session.url));
    expect(page!.orders).toEqual([]);
    expect(page!.subscriptions).toEqual([
      {
        id: subscription.id,
        planName: 'Moth club',
        status: 'past_due',
        amount: 990,
        interval: 'month',
        intervalCount: 1,
        created: epoch(T0) - 60 * 86400,
        nextBillingAt: epoch(T0) + 86400,
        endsAt: null,
        card: { brand: 'visa', last4: '4242' },
        scheduledChange: null,
        trialEnd: null,
        discount: null,
        credit: 0,
        updatePaymentMethodUrl: expect.stringMatching(new RegExp(`^https://pay\\.example\\.test/payment-method/${subscription.id}\\?expires=${epoch(T0) + 7 * 86400}&signature=`)),
        payments: [
          { amount: 990, status: 'declined', date: epoch(T0) - 30 * 86400, card: { brand: 'mastercard', last4: '4444' }, invoiceId: null },
          { amount: 990, status: 'succeeded', date: epoch(T0) - 60 * 86400, card: { brand: 'visa', last4: '4242' }, invoiceId: null },
        ],
      },
    ]);
  });

  it('a plan change waiting for the renewal: its plan, price and when', async () => {
    const seed = seedOf(api);
    const customer = await seedCustomer(seed, store);
    const changing = await seedSubscription(seed, store, { customer, planName: 'Basic' });
    const effectiveAt = epoch(T0) + 30 * 86400;
    await api.services.db
      .update(subscriptions)
      .set({
        pendingChange: {
          price_id: null,
          product_id: null,
          plan_name: 'Team',
          amount: 4900,
          interval: 'week',
          interval_count: 2,
          tax_category: 'standard',
          tax_inclusive: true,
          effective_at: effectiveAt,
        },
      })
      .where(eq(subscriptions.id, changing.id));
    const session = await createdPortal(api, store.key, { subscription_id: changing.id });
    const page = await openPortal(deps(), tokenOf(session.url));
    expect(page!.subscriptions[0]!.scheduledChange).toEqual({ planName: 'Team', amount: 4900, interval: 'week', intervalCount: 2, effectiveAt });
  });

  it('a credit a plan change left shows as `Credit` while the subscription is charged; none, or one ended, shows no credit', async () => {
    const seed = seedOf(api);
    const customer = await seedCustomer(seed, store);
    const credited = await seedSubscription(seed, store, { customer, planName: 'Credited' });
    const ended = await seedSubscription(seed, store, { customer, planName: 'Ended', status: 'canceled' });
    const plain = await seedSubscription(seed, store, { customer, planName: 'Plain' });
    for (const { id } of [credited, ended]) await api.services.db.update(subscriptions).set({ creditBalance: 500 }).where(eq(subscriptions.id, id));
    const session = await createdPortal(api, store.key, { customer_id: customer.id });
    const shown = (await openPortal(deps(), tokenOf(session.url)))!.subscriptions;
    const byId = (id: string) => shown.find((subscription) => subscription.id === id)!;
    expect([byId(credited.id).credit, byId(ended.id).credit, byId(plain.id).credit]).toEqual([500, 0, 0]);
    const factsOf = (subscription: (typeof shown)[number]) => {
      const html = renderToStaticMarkup(createElement(SubscriptionCard, { subscription, format: formattersFor('en-GB'), portalPath: '/portal/x', index: 0 }));
      return Object.fromEntries([...html.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map(([, label, value]) => [label!, value!.replace(/<[^>]+>/g, '')]));
    };
    expect(factsOf(byId(credited.id))).toMatchObject({ Price: '€9.90 every month', Credit: '€5.00' });
    expect(factsOf(byId(ended.id))).not.toHaveProperty('Credit');
    expect(factsOf(byId(plain.id))).not.toHaveProperty('Credit');
    expect(factsOf({ ...byId(credited.id), credit: 123_456 })).toMatchObject({ Credit: '€1,234.56' });
  });

  it('a subscription still charged gets a fresh signed link to give another card at each view, on the store clock; one ending shows its end instead of a next payment; an ended one no link', async () => {
    // A store of its own: its test clock moves.
    const clockStore = await createStore(api.services);
    const seed = seedOf(api);
    const customer = await seedCustomer(seed, clockStore);
    const ending = await seedSubscription(seed, clockStore, { customer, planName: 'Ending', endScheduled: true, nextBillingInSeconds: 5 * 86400, card: { brand: 'mastercard', last4: '4444' } });
    const ended = await seedSubscription(seed, clockStore, { customer, planName: 'Ended', status: 'canceled', card: null });
    const session = await createdPortal(api, clockStore.keys.sk_test, { customer_id: customer.id, expires_at: epoch(T0) + 2 * 86400 });
    const linkOf = async () => {
      const page = await openPortal(deps(), tokenOf(session.url));
      return page!.subscriptions.find((subscription) => subscription.id === ending.id)!;
    };
    const first = await linkOf();
    expect(first).toMatchObject({ nextBillingAt: null, endsAt: epoch(T0) + 5 * 86400, card: { brand: 'mastercard', last4: '4444' } });
    const url = new URL(first.updatePaymentMethodUrl!);
    expect(url.pathname).toBe(`/payment-method/${ending.id}`);
    const check = (link: URL, at: number) => checkPaymentMethodLink(api.services.config, ending.id, link.searchParams.get('expires') ?? undefined, link.searchParams.get('signature') ?? undefined, at);
    expect(check(url, epoch(T0))).toBe('valid');
    // The store's test clock moves on: the next view makes a new link, valid 7 days from then.
    await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: clockStore.keys.sk_test, body: { seconds: 86400 } });
    const later = new URL((await linkOf()).updatePaymentMethodUrl!);
    expect(later.searchParams.get('expires')).toBe(String(epoch(T0) + 8 * 86400));
    expect(check(later, epoch(T0) + 86400)).toBe('valid');
    expect(check(url, epoch(T0) + 7 * 86400)).toBe('expired');
    const page = await openPortal(deps(), tokenOf(session.url));
    expect(page!.subscriptions.find((subscription) => subscription.id === ended.id)).toMatchObject({ nextBillingAt: null, endsAt: null, card: null, updatePaymentMethodUrl: null });
  });

  it('a trial: status trialing, when it ends, the discount and until when, both links; the card check is no payment; the card shows `Trial`, `Trial ends` and `Discount`', async () => {
    const seed = seedOf(api);
    const customer = await seedCustomer(seed, store);
    const subscription = await seedSubscription(seed, store, { customer, planName: 'Moth club', nextBillingInSeconds: 14 * 86400 });
    const trialEnd = new Date(T0.getTime() + 14 * 86400_000);
    const terms = {
      coupon: 'cpn_test_x',
      promotion_code: null,
      label: 'Spring',
      name: 'Spring',
      percent_off: 15,
      amount_off: null,
      duration: 'repeating' as const,
      duration_in_months: 12,
      applies_to: null,
    };
    await api.services.db
      .update(subscriptions)
      .set({ status: 'trialing', trialStart: T0, trialEnd, discount: terms, discountEnd: new Date('2027-03-01T12:00:00Z') })
      .where(eq(subscriptions.id, subscription.id));
    const session = await createdPortal(api, store.key, { subscription_id: subscription.id });
    const [shown] = (await openPortal(deps(), tokenOf(session.url)))!.subscriptions;
    expect(shown).toMatchObject({
      status: 'trialing',
      trialEnd: epoch(trialEnd),
      discount: { percentOff: 15, amountOff: null, until: epoch(new Date('2027-03-01T12:00:00Z')) },
      updatePaymentMethodUrl: expect.stringContaining(`/payment-method/${subscription.id}?`),
    });
    const html = renderToStaticMarkup(createElement(SubscriptionCard, { subscription: shown!, format: formattersFor('en-GB'), portalPath: '/portal/x', index: 0 }));
    const facts = Object.fromEntries([...html.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map(([, label, value]) => [label!, value!.replace(/<[^>]+>/g, '')]));
    expect(facts).toMatchObject({ 'Trial ends': '15 March 2026', Discount: '15% off until 1 March 2027' });
    expect(html).toContain('>Trial<');
    expect(html).toContain('>Update payment method</a>');
    expect(html).toContain(`/cancel?number=${subscription.id}`);
    // An amount, forever: without an end.
    const amountOff = { ...shown!, discount: { percentOff: null, amountOff: 300, until: null } };
    expect(renderToStaticMarkup(createElement(SubscriptionCard, { subscription: amountOff, format: formattersFor('en-GB'), portalPath: '/portal/x', index: 0 }))).toContain('<dd>€3.00 off</dd>');
  });

  it('a customer with nothing yet: empty lists (the page shows empty states)', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const session = await createdPortal(api, store.key, { customer_id: customer.id });
    expect(await openPortal(deps(), tokenOf(session.url))).toMatchObject({ orders: [], subscriptions: [] });
  });
});

describe('resolving and counting', () => {
  it('each view counts once, also when views run concurrently; last_accessed_at is the store clock', async () => {
    const customer = await seedCustomer(seedOf(api), store);
    const session = await createdPortal(api, store.key, { customer_id: customer.id });
    api.clock.advance(90);
    await Promise.all(Array.from({ length: 12 }, () => openPortal(deps(), tokenOf(session.url))));
    // The proxy's check does not count.
    expect(await portalLinkStore(deps(), tokenOf(session.url))).toEqual({ storeLinks: { logoUrl: null, termsUrl: null, privacyUrl: null } });
    const read = await api.request('GET', `${SESSIONS}/${session.id}`, { key: store.key });
    expect(read.body).toMatchObject({ access_count: 12, last_accessed_at: epoch(T0) + 90 });
  });

  it('expired (test clock) and revoked links stop resolving on the next request, and are not counted', async () => {
    const clockStore = await createStore(api.services);
    const customer = await seedCustomer(seedOf(api), clockStore);
    const expiring = await createdPortal(api, clockStore.keys.sk_test, { customer_id: customer.id, expires_at: epoch(T0) + 300 });
    const revoked = await createdPortal(api, clockStore.keys.sk_test, { customer_id: customer.id });
    expect(await openPortal(deps(), tokenOf(expiring.url))).toBeDefined();
    await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: clockStore.keys.sk_test, body: { seconds: 300 } });
    expect(await portalLinkStore(deps(), tokenOf(expiring.url))).toBeUndefined();
    expect(await openPortal(deps(), tokenOf(expiring.url))).toBeUndefined();
    expect(await openPortal(deps(), tokenOf(revoked.url))).toBeDefined();
    await api.request('DELETE', `${SESSIONS}/${revoked.id}`, { key: clockStore.keys.sk_test });
    expect(await portalLinkStore(deps(), tokenOf(revoked.url))).toBeUndefined();
    expect(await openPortal(deps(), tokenOf(revoked.url))).toBeUndefined();
    const counts = await Promise.all([expiring, revoked].map((s) => api.request('GET', `${SESSIONS}/${s.id}`, { key: clockStore.keys.sk_test })));
    expect(counts.map((response) => response.body.access_count)).toEqual([1, 1]);
  });

  it('unknown and malformed tokens never resolve', async () => {
    expect(await portalLinkStore(deps(), 'A'.repeat(43))).toBeUndefined();
    expect(await openPortal(deps(), 'A'.repeat(43))).toBeUndefined();
    expect(await portalLinkStore(deps(), "' or 1=1 --")).toBeUndefined();
    expect(await openPortal(deps(), 'short')).toBeUndefined();
  });
});
