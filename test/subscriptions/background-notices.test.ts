import { describe, expect, it } from 'vitest';
import { queueRenewalReminders } from '@/server/subscriptions/reminders';
import { noticeEndingTrials } from '@/server/subscriptions/trials';
import { DAY } from '../billing/support';
import { listEmails } from '../mail/support';
import { T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { createCheckout, PLAN, submitCard } from './support';

/**
 * The background passes over every store at once, on each subscription's own clock in SQL: a
 * trial's notice three days before its end, a renewal's reminder seven days before, never sooner.
 */
const api = useTestApi({ subscriptionsEnabled: true });

describe('the background passes over every store', () => {
  it('a trial’s notice and a renewal’s reminder fall due by wall time, each once', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services, { subscriptions: true });
    const key = store.keys.sk_test;
    await submitCard(api, await createCheckout(api, key, { ...PLAN, customer_email: 'trial@example.com', trial_days: 14 }));
    await submitCard(api, await createCheckout(api, key, { ...PLAN, customer_email: 'monthly@example.com' }));

    api.clock.set(new Date(T0.getTime() + 10 * DAY * 1000));
    expect(await noticeEndingTrials(api.services, { kind: 'all' })).toBe(0);
    api.clock.set(new Date(T0.getTime() + 11 * DAY * 1000 + 1000));
    expect(await noticeEndingTrials(api.services, { kind: 'all' })).toBe(1);
    expect(await noticeEndingTrials(api.services, { kind: 'all' })).toBe(0);
    expect((await listEmails(api, key, '?template=trial_ending')).map((email) => email.to)).toEqual(['trial@example.com']);

    // The monthly plan renews a month after T0: its reminder is due seven days before, not eight.
    api.clock.set(new Date(T0.getTime() + 23 * DAY * 1000));
    expect(await queueRenewalReminders(api.services, { kind: 'all' })).toBe(0);
    api.clock.set(new Date(T0.getTime() + 25 * DAY * 1000));
    expect(await queueRenewalReminders(api.services, { kind: 'all' })).toBe(1);
    expect(await queueRenewalReminders(api.services, { kind: 'all' })).toBe(0);
    expect((await listEmails(api, key, '?template=renewal_reminder')).map((email) => email.to)).toEqual(['monthly@example.com']);
  });
});
