import { and, asc, eq, inArray } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { emails, invoices, subscriptionCharges } from '@/db/schema';
import { settleCharges } from '@/server/billing/charges';
import { billDueSubscriptions } from '@/server/billing/engine';
import { periodBoundary } from '@/server/subscriptions/schedule';
import { epoch, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { CARDS, createSubscription, createSubscriptions } from '../support/subscriptions';
import { chargesOf, eventsOf } from './support';

const api = useTestApi({ subscriptionsEnabled: true });
beforeEach(() => api.clock.set(T0));

const monthly = (n: number) => periodBoundary(T0, 'month', 1, n);

describe('a batch of renewals settled in one transaction', () => {
  it('each subscription moves by its own outcome, with its own events in order; the invoices of the batch are numbered consecutively per store', async () => {
    const [one, two] = await Promise.all([createStore(api.services, { subscriptions: true }), createStore(api.services, { subscriptions: true })]);
    const paid = [await createSubscription(api.services, one!.id), await createSubscription(api.services, one!.id), await createSubscription(api.services, two!.id)];
    const declined = await createSubscription(api.services, one!.id, { card: CARDS.declinesRecurring });

    api.clock.set(monthly(1));
    expect(await billDueSubscriptions(api.services, { kind: 'all' }, { batchSize: 10 })).toBe(4);

    for (const sub of paid) {
      const events = await eventsOf(api.services.db, sub.id);
      expect(events.map((event) => [event.type, (event as { sequence?: number }).sequence])).toEqual([
        ['subscription.payment_succeeded', 1],
        ['subscription.updated', 2],
      ]);
      expect(events[1]!.data.object).toMatchObject({ id: sub.id, status: 'active', current_period_start: epoch(monthly(1)), next_billing_at: epoch(monthly(2)) });
      expect((await chargesOf(api.services.db, sub.id)).map((charge) => [charge.cycle, charge.status])).toEqual([
        [1, 'succeeded'],
        [2, 'succeeded'],
      ]);
    }
    expect((await eventsOf(api.services.db, declined.id)).map((event) => event.type)).toEqual(['subscription.payment_failed', 'subscription.past_due', 'subscription.updated']);

    const issued = await api.services.db
      .select({ storeId: invoices.storeId, number: invoices.number, subscriptionId: invoices.subscriptionId, storeName: invoices.storeName })
      .from(invoices)
      .where(inArray(invoices.storeId, [one!.id, two!.id]))
      .orderBy(asc(invoices.number));
    expect(issued.filter((invoice) => invoice.storeId === one!.id).map((invoice) => invoice.number.slice(-6))).toEqual(['000001', '000002']);
    expect(issued.filter((invoice) => invoice.storeId === two!.id).map((invoice) => invoice.number.slice(-6))).toEqual(['000001']);
    expect(issued.map((invoice) => invoice.subscriptionId).sort()).toEqual(paid.map((sub) => sub.id).sort());
    expect(issued.every((invoice) => invoice.storeName.length > 0)).toBe(true);
    for (const invoice of issued) {
      const [invoiceIssued] = await api.services.db.select().from(invoices).where(eq(invoices.number, invoice.number));
      expect((await eventsOf(api.services.db, invoiceIssued!.id)).map((event) => event.type)).toEqual(['invoice.issued']);
    }

    const mailed = await api.services.db
      .select({ subscriptionId: emails.subscriptionId, template: emails.template, invoiceId: emails.invoiceId })
      .from(emails)
      .where(
        inArray(
          emails.subscriptionId,
          [...paid, declined].map((sub) => sub.id),
        ),
      );
    expect(
      mailed
        .filter((email) => email.template === 'receipt')
        .map((email) => email.subscriptionId)
        .sort(),
    ).toEqual(paid.map((sub) => sub.id).sort());
    const invoiceOf = new Map(
      await api.services.db
        .select({ subscriptionId: invoices.subscriptionId, id: invoices.id })
        .from(invoices)
        .where(inArray(invoices.storeId, [one!.id, two!.id]))
        .then((rows) => rows.map((row) => [row.subscriptionId, row.id])),
    );
    // Each receipt names and attaches its own subscription's invoice.
    for (const email of mailed.filter((email) => email.template === 'receipt')) expect(email.invoiceId).toBe(invoiceOf.get(email.subscriptionId));
    expect(mailed.filter((email) => email.template === 'payment_failed').map((email) => email.subscriptionId)).toEqual([declined.id]);
  });

  it('a pass works on two batches at once and counts every charge it settled, each once', async () => {
    const store = await createStore(api.services, { subscriptions: true });
    const subs = await createSubscriptions(api.services, store.id, { count: 40 });
    api.clock.set(monthly(1));
    expect(await billDueSubscriptions(api.services, { kind: 'all' }, { batchSize: 4, lanes: 2 })).toBe(40);
    const renewals = await api.services.db
      .select({ subscriptionId: subscriptionCharges.subscriptionId })
      .from(subscriptionCharges)
      .where(
        and(
          inArray(
            subscriptionCharges.subscriptionId,
            subs.map((sub) => sub.id),
          ),
          eq(subscriptionCharges.cycle, 2),
          eq(subscriptionCharges.status, 'succeeded'),
        ),
      );
    expect(new Set(renewals.map((charge) => charge.subscriptionId)).size).toBe(40);
    expect(renewals).toHaveLength(40);
  });

  it('a charge already settled is left as it is while the rest of its batch settles; two charges of one subscription are refused', async () => {
    const store = await createStore(api.services, { subscriptions: true });
    const [first, second] = [await createSubscription(api.services, store.id), await createSubscription(api.services, store.id)];
    api.clock.set(monthly(1));
    expect(await billDueSubscriptions(api.services)).toBe(2);
    const [settledCharge] = await api.services.db
      .select()
      .from(subscriptionCharges)
      .where(and(eq(subscriptionCharges.subscriptionId, first.id), eq(subscriptionCharges.cycle, 2)));
    const [openCharge] = await api.services.db
      .insert(subscriptionCharges)
      .values({
        ...settledCharge!,
        id: 'subch_batchtestopen000000000',
        subscriptionId: second.id,
        cycle: 3,
        idempotencyKey: `subscription:${second.id}:3:0`,
        status: 'processing',
        settledAt: null,
        orderId: null,
      })
      .returning();
    const succeeded = { status: 'succeeded' as const, paymentId: 'pay_batch', brand: 'visa', last4: '4242' };

    const settlements = await settleCharges(api.services, [
      { charge: settledCharge!, outcome: succeeded },
      { charge: openCharge!, outcome: succeeded },
    ]);
    expect(settlements.map((settlement) => [settlement.settled, settlement.events])).toEqual([
      [false, []],
      [true, ['subscription.payment_succeeded', 'subscription.updated']],
    ]);
    expect((await eventsOf(api.services.db, first.id)).map((event) => event.type)).toHaveLength(2);
    expect((await eventsOf(api.services.db, second.id)).map((event) => event.type)).toHaveLength(4);

    await expect(
      settleCharges(api.services, [
        { charge: openCharge!, outcome: succeeded },
        { charge: { ...openCharge!, id: 'subch_other' }, outcome: succeeded },
      ]),
    ).rejects.toThrow(/two charges of one subscription/);
  });
});
