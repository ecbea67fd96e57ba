import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, simulatorRecurring, subscriptions } from '@/db/schema';
import { listCancellations } from '@/server/subscriptions/cancellation';
import { checkCancelForm, declareCancelForm, keepFromLink, openCancelReceipt } from '@/server/subscriptions/cancel-page';
import { advanceClock, chargesOf, DAY, recurringLedger, retrieveSubscription } from '../billing/support';
import { listEmails } from '../mail/support';
import { epoch } from '../support/api';
import { createStore } from '../support/factories';
import { listOf } from '../support/lists';
import { serveFetchHandler, useTestApi } from '../support/server';
import { createSubscription } from '../support/subscriptions';
import { CARDS, eventsOf, PLAN, subscribe } from './support';

/**
 * The /cancel forms' two posts over HTTP against a real database, and the e-mail's keep link:
 * what a declaration changes on the subscriptions it matches (and on nothing else), the e-mail in
 * the page's language, billing ending a scheduled subscription at its period's end, and the same
 * answer for a declaration that matches nothing. The pages themselves are driven in Chromium by
 * test/browser/cancel.test.ts.
 */
const ORIGIN = 'https://pay.example.test';
const LIMIT = 6;
const api = useTestApi({
  publicBaseUrl: ORIGIN,
  subscriptionsEnabled: true,
  rateLimits: { perIp: 100_000, perKey: 100_000, productWritesPerKey: 100_000, windowSeconds: 1, cancelPerIp: LIMIT, cancelWindowSeconds: 3600 },
});

let forms: { baseUrl: string; close(): Promise<void> };
let address = 0;
let mailbox = 0;

beforeAll(async () => {
  forms = await serveFetchHandler(async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/cancel/check') return checkCancelForm(api.services, request);
    if (pathname === '/cancel/declare') return declareCancelForm(api.services, request);
    return new Response('not found', { status: 404 });
  });
});
afterAll(() => forms.close());

/** The wall clock (frozen in tests), where the test-mode stores' clocks start. */
const now = () => epoch(api.clock.now());

/** Each test speaks from an address of its own, so the allowance per address is its own too. */
const newAddress = () => `198.51.100.${++address}`;
/** An e-mail address no other test uses, so matches are this test's own. */
const newEmail = (name = 'customer') => `${name}-${++mailbox}@example.com`;

function post(path: string, fields: Record<string, string>, options: { ip: string; origin?: string; acceptLanguage?: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': options.ip, origin: options.origin ?? ORIGIN };
  if (options.acceptLanguage) headers['accept-language'] = options.acceptLanguage;
  return fetch(`${forms.baseUrl}${path}`, { method: 'POST', headers, body: new URLSearchParams(fields), redirect: 'manual' });
}

interface Typed {
  email: string;
  name?: string;
  number?: string;
  reason?: string;
  cancel_at?: 'period_end' | 'asap';
  lang?: 'en' | 'de';
}

/** Both steps as a browser posts them: the check, then the confirmation with the draft it sealed. */
async function cancelOnPages(typed: Typed, ip = newAddress()) {
  const lang = typed.lang ?? 'en';
  const checked = await post('/cancel/check', { number: '', name: 'Ada Lovelace', reason: '', cancel_at: 'period_end', ...typed, lang }, { ip });
  expect(checked.status).toBe(303);
  const confirm = new URL(checked.headers.get('location')!, ORIGIN);
  expect(confirm.pathname).toBe('/cancel/confirm');
  expect(confirm.searchParams.get('lang')).toBe(lang);
  const draft = confirm.searchParams.get('draft')!;
  const started = performance.now();
  const declared = await post('/cancel/declare', { draft, lang }, { ip });
  const ms = performance.now() - started;
  expect(declared.status).toBe(303);
  expect(declared.headers.get('cache-control')).toBe('no-store');
  const location = declared.headers.get('location')!;
  const received = new URL(location, ORIGIN);
  expect(received.pathname).toBe('/cancel/received');
  expect([...received.searchParams.keys()]).toEqual(['receipt', 'lang']);
  expect(received.searchParams.get('lang')).toBe(lang);
  return { location, ms, receipt: openCancelReceipt(api.services.config, received.searchParams.get('receipt')!) };
}

async function newStore() {
  const store = await createStore(api.services, { subscriptions: true });
  return { id: store.id, key: store.keys.sk_test, liveKey: store.keys.sk_live, name: store.name };
}

/** A subscription paid through the hosted form (so it has its invoice and its customer's language). */
async function paidSubscription(key: string, email: string, card: string = CARDS.approved) {
  return (await subscribe(api, key, card, { ...PLAN, customer_email: email })).subscription;
}

const typesOf = async (id: string) => (await eventsOf(api.services.db, id)).map((event) => event.type);
const emailsOf = async (key: string, template: string, id: string) => (await listEmails(api, key, `?template=${template}&limit=100`)).filter((email) => email.related.subscription_id === id);

describe('a declaration that matches a running subscription', () => {
  it('schedules the end at the period’s end with the declaration, one subscription.updated, and the e-mail in English', async () => {
    const store = await newStore();
    const email = newEmail('ordinary');
    const subscription = await paidSubscription(store.key, email);
    const before = await typesOf(subscription.id);
    await advanceClock(api, store.key, 2 * DAY);
    const { receipt } = await cancelOnPages({ email: email.toUpperCase(), number: subscription.id, reason: 'Too expensive' });
    expect(receipt).toEqual({ email: email.toUpperCase(), number: subscription.id, declaredAt: now() });

    const after = await retrieveSubscription(api, store.key, subscription.id);
    expect(after).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: subscription.current_period_end,
      cancellation: { declared_at: now() + 2 * DAY, type: 'ordinary', reason: 'Too expensive' },
      canceled_at: null,
      ended_at: null,
    });
    expect(await typesOf(subscription.id)).toEqual([...before, 'subscription.updated']);
    const updated = (await eventsOf(api.services.db, subscription.id)).at(-1)!;
    expect(updated.data.object).toEqual(after);
    expect(updated.data.previous_attributes).toMatchObject({ cancel_at_period_end: false, cancel_at: null, cancellation: null });
    // Audited as the customer, naming the declaration the operator lists.
    const [declaration] = await listCancellations(api.services.db, { email });
    const audits = await api.services.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, 'subscription.cancellation_declare')));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      keyHint: 'customer',
      method: 'POST',
      path: '/cancel/declare',
      details: { subscription: subscription.id, cancellation: declaration!.id, type: 'ordinary', previous_status: 'active' },
    });

    const [mail] = await emailsOf(store.key, 'cancellation_received', subscription.id);
    expect(mail).toMatchObject({ to: email, language: 'en', subject: `We received your cancellation of Pro plan at ${store.name}` });
    const endDate = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(subscription.current_period_end * 1000));
    for (const part of [
      store.name,
      'Cancellation received',
      'Pro plan',
      subscription.id,
      'Received',
      'Ordinary (end of the current period)',
      'Too expensive',
      'Ends on',
      endDate,
      'Keep my subscription',
    ]) {
      expect(mail.text).toContain(part);
    }
    expect(mail.text).toMatch(new RegExp(`${ORIGIN}/cancel/keep/${subscription.id}\\?expires=${subscription.current_period_end}&signature=`));
  });

  it('`asap`: an extraordinary cancellation, the same end; the e-mail in German when the page was', async () => {
    const store = await newStore();
    const email = newEmail('asap');
    const subscription = await paidSubscription(store.key, email);
    await cancelOnPages({ email, cancel_at: 'asap', reason: 'Umzug ins Ausland', lang: 'de' });
    const after = await retrieveSubscription(api, store.key, subscription.id);
    expect(after).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: subscription.current_period_end,
      cancellation: { declared_at: now(), type: 'extraordinary', reason: 'Umzug ins Ausland' },
    });
    const [mail] = await emailsOf(store.key, 'cancellation_received', subscription.id);
    expect(mail).toMatchObject({ language: 'de', subject: `Ihre Kündigung von Pro plan bei ${store.name} ist eingegangen` });
    for (const part of ['Kündigung eingegangen', 'Eingegangen', 'Umzug ins Ausland', subscription.id, 'Abonnement behalten']) expect(mail.text).toContain(part);
    expect(mail.text).toContain(`${ORIGIN}/cancel/keep/${subscription.id}?expires=`);
  });

  it('the keep link undoes it (subscription.updated); a second click changes nothing', async () => {
    const store = await newStore();
    const email = newEmail('keep');
    const subscription = await paidSubscription(store.key, email);
    await cancelOnPages({ email });
    const [mail] = await emailsOf(store.key, 'cancellation_received', subscription.id);
    const link = new URL(/https:\/\/\S+\/cancel\/keep\/\S+/.exec(mail.text)![0]);
    const params = { id: subscription.id, expires: link.searchParams.get('expires') ?? undefined, signature: link.searchParams.get('signature') ?? undefined };
    const before = await typesOf(subscription.id);

    expect(await keepFromLink(api.services, params, '203.0.113.1')).toEqual({ state: 'kept', language: 'en', planName: 'Pro plan', at: subscription.current_period_end });
    const kept = await retrieveSubscription(api, store.key, subscription.id);
    expect(kept).toMatchObject({ status: 'active', cancel_at_period_end: false, cancel_at: null, cancellation: null });
    expect(await typesOf(subscription.id)).toEqual([...before, 'subscription.updated']);

    expect(await keepFromLink(api.services, params, '203.0.113.1')).toMatchObject({ state: 'not_scheduled' });
    expect(await typesOf(subscription.id)).toEqual([...before, 'subscription.updated']);
    expect(await retrieveSubscription(api, store.key, subscription.id)).toEqual(kept);

    // A changed signature, another subscription's id or a link past its end open nothing.
    expect(await keepFromLink(api.services, { ...params, signature: `${params.signature}x` }, '203.0.113.1')).toBeUndefined();
    expect(await keepFromLink(api.services, { ...params, id: 'sub_test_other' }, '203.0.113.1')).toBeUndefined();
    expect(await keepFromLink(api.services, { ...params, expires: String(now() - 1) }, '203.0.113.1')).toBeUndefined();
  });

  it('at the period’s end it is canceled, with no charge and no renewal reminder before it, its contract cancelled', async () => {
    const store = await newStore();
    const email = newEmail('ends');
    const subscription = await paidSubscription(store.key, email);
    await cancelOnPages({ email });
    const scheduled = await retrieveSubscription(api, store.key, subscription.id);
    const before = await typesOf(subscription.id);

    // Inside the week before the renewal that would have been: no reminder.
    await advanceClock(api, store.key, subscription.current_period_end - now() - 5 * DAY);
    expect(await emailsOf(store.key, 'renewal_reminder', subscription.id)).toEqual([]);
    await advanceClock(api, store.key, 5 * DAY);

    const ended = await retrieveSubscription(api, store.key, subscription.id);
    expect(ended).toMatchObject({ status: 'canceled', canceled_at: scheduled.cancel_at, ended_at: scheduled.cancel_at });
    expect(await typesOf(subscription.id)).toEqual([...before, 'subscription.canceled', 'subscription.updated']);
    const [mail] = await emailsOf(store.key, 'subscription_canceled', subscription.id);
    expect(mail.text).toContain('as you asked when you cancelled');
    expect(await emailsOf(store.key, 'renewal_reminder', subscription.id)).toEqual([]);
    const [row] = await api.services.db.select().from(subscriptions).where(eq(subscriptions.id, subscription.id));
    expect(await recurringLedger(api.services.db, row!.recurringId)).toEqual([]);
    expect((await chargesOf(api.services.db, subscription.id)).map((charge) => charge.cycle)).toEqual([1]);
    const [contract] = await api.services.db.select().from(simulatorRecurring).where(eq(simulatorRecurring.id, row!.recurringId));
    expect(contract!.canceledAt).not.toBeNull();
  });

  it('drops a plan change waiting for the next period: canceled at the period’s end, not changed', async () => {
    const store = await newStore();
    const email = newEmail('changing');
    const subscription = await paidSubscription(store.key, email);
    const changed = await api.request('POST', `/api/v1/subscriptions/${subscription.id}/change`, {
      key: store.key,
      body: { amount: 1990, interval: 'month', plan_name: 'Team plan', proration: 'next_period' },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const pendingChange = {
      price_id: null,
      product_id: null,
      plan_name: 'Team plan',
      amount: 1990,
      interval: 'month',
      interval_count: 1,
      effective_at: subscription.current_period_end,
    };
    expect(changed.body.pending_change).toEqual(pendingChange);
    const before = await typesOf(subscription.id);

    await cancelOnPages({ email, number: subscription.id });
    const after = await retrieveSubscription(api, store.key, subscription.id);
    expect(after).toEqual({
      ...changed.body,
      cancel_at_period_end: true,
      cancel_at: subscription.current_period_end,
      cancellation: { declared_at: now(), type: 'ordinary', reason: null },
      pending_change: null,
    });
    expect(await typesOf(subscription.id)).toEqual([...before, 'subscription.updated']);
    const updated = (await eventsOf(api.services.db, subscription.id)).at(-1)!;
    expect(updated.data.object).toEqual(after);
    expect(updated.data.previous_attributes).toEqual({ cancel_at_period_end: false, cancel_at: null, cancellation: null, pending_change: pendingChange });

    await advanceClock(api, store.key, subscription.current_period_end - now());
    expect(await retrieveSubscription(api, store.key, subscription.id)).toMatchObject({
      status: 'canceled',
      amount: 990,
      interval: 'month',
      pending_change: null,
      canceled_at: subscription.current_period_end,
      ended_at: subscription.current_period_end,
    });
    expect(await typesOf(subscription.id)).toEqual([...before, 'subscription.updated', 'subscription.canceled', 'subscription.updated']);
    expect((await chargesOf(api.services.db, subscription.id)).map((charge) => charge.cycle)).toEqual([1]);
  });

  it('past_due: canceled now, its retries stop, the e-mail’s end is now', async () => {
    const store = await newStore();
    const email = newEmail('overdue');
    const subscription = await paidSubscription(store.key, email, CARDS.declinesRecurring);
    await advanceClock(api, store.key, subscription.current_period_end - now());
    const overdue = await retrieveSubscription(api, store.key, subscription.id);
    expect(overdue.status).toBe('past_due');
    const before = await typesOf(subscription.id);
    const [row] = await api.services.db.select().from(subscriptions).where(eq(subscriptions.id, subscription.id));
    const attempts = (await recurringLedger(api.services.db, row!.recurringId)).length;
    const endedAt = subscription.current_period_end;

    await cancelOnPages({ email, number: subscription.id });
    expect(await retrieveSubscription(api, store.key, subscription.id)).toMatchObject({
      status: 'canceled',
      canceled_at: endedAt,
      ended_at: endedAt,
      cancellation: { declared_at: endedAt, type: 'ordinary', reason: null },
    });
    expect(await typesOf(subscription.id)).toEqual([...before, 'subscription.canceled', 'subscription.updated']);
    const [mail] = await emailsOf(store.key, 'cancellation_received', subscription.id);
    expect(mail.text).toContain('It has ended now');
    expect(mail.text).not.toContain('Keep my subscription');

    await advanceClock(api, store.key, 20 * DAY);
    expect((await recurringLedger(api.services.db, row!.recurringId)).length).toBe(attempts);
    expect((await retrieveSubscription(api, store.key, subscription.id)).status).toBe('canceled');
  });

  it('an end already scheduled: nothing changes, no event', async () => {
    const store = await newStore();
    const email = newEmail('twice');
    const subscription = await paidSubscription(store.key, email);
    await cancelOnPages({ email, reason: 'first' });
    const scheduled = await retrieveSubscription(api, store.key, subscription.id);
    const events = await typesOf(subscription.id);
    await advanceClock(api, store.key, DAY);
    await cancelOnPages({ email, cancel_at: 'asap', reason: 'second' });
    expect(await retrieveSubscription(api, store.key, subscription.id)).toEqual(scheduled);
    expect(await typesOf(subscription.id)).toEqual(events);
  });

  it('DELETE /subscriptions/{id} still ends a scheduled subscription now', async () => {
    const store = await newStore();
    const email = newEmail('delete');
    const subscription = await paidSubscription(store.key, email);
    await cancelOnPages({ email });
    await advanceClock(api, store.key, 3 * DAY);
    const deleted = await api.request('DELETE', `/api/v1/subscriptions/${subscription.id}`, { key: store.key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ status: 'canceled', canceled_at: now() + 3 * DAY, ended_at: now() + 3 * DAY });
  });
});

describe('which subscriptions a declaration names', () => {
  it('the number: the subscription’s id or one of its invoices’ numbers; a wrong number matches nothing', async () => {
    const store = await newStore();
    const email = newEmail('numbers');
    const [byId, byInvoice, untouched] = [await paidSubscription(store.key, email), await paidSubscription(store.key, email), await paidSubscription(store.key, email)];
    const [order] = (await listOf(api, '/api/v1/orders', store.key, `subscription_id=${byInvoice.id}`)).body.data;
    const invoice = (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key: store.key })).body;
    expect(invoice.number).toMatch(/^TEST-INV-/);

    await cancelOnPages({ email, number: 'sub_test_doesnotexist000000000' });
    await cancelOnPages({ email, number: 'TEST-INV-000000-999999' });
    for (const subscription of [byId, byInvoice, untouched]) expect((await retrieveSubscription(api, store.key, subscription.id)).cancel_at_period_end).toBe(false);

    await cancelOnPages({ email, number: byId.id });
    await cancelOnPages({ email, number: invoice.number });
    expect((await retrieveSubscription(api, store.key, byId.id)).cancel_at_period_end).toBe(true);
    expect((await retrieveSubscription(api, store.key, byInvoice.id)).cancel_at_period_end).toBe(true);
    expect((await retrieveSubscription(api, store.key, untouched.id)).cancel_at_period_end).toBe(false);
    // Another address with the right number: nothing.
    const other = await paidSubscription(store.key, newEmail('other'));
    await cancelOnPages({ email, number: other.id });
    expect((await retrieveSubscription(api, store.key, other.id)).cancel_at_period_end).toBe(false);
  });

  it('without a number, every running subscription of the address (any case) in every store and both environments', async () => {
    const email = newEmail('everywhere');
    const [first, second] = [await newStore(), await newStore()];
    const test = await paidSubscription(first.key, email);
    const live = await createSubscription(api.services, second.id, { livemode: true, customerEmail: email.toUpperCase() });
    const { id } = await cancelOnPages({ email: ` ${email} `, reason: 'Moving' }).then(async () => (await listCancellations(api.services.db, { email }))[0]!);
    expect((await retrieveSubscription(api, first.key, test.id)).cancel_at_period_end).toBe(true);
    expect(await retrieveSubscription(api, second.liveKey, live.id)).toMatchObject({ livemode: true, cancel_at_period_end: true, cancellation: { type: 'ordinary', reason: 'Moving' } });
    const [recorded] = await listCancellations(api.services.db, { email: email.toUpperCase() });
    expect(recorded).toEqual({
      id,
      declared_at: now(),
      email,
      number: null,
      name: 'Ada Lovelace',
      reason: 'Moving',
      cancel_at: 'period_end',
      language: 'en',
      subscriptions: [live.id, test.id].sort(),
    });
  });

  it('no match: recorded only; the same redirect and page, after a similar time', async () => {
    const store = await newStore();
    const email = newEmail('matched');
    await paidSubscription(store.key, email);
    const matched = await cancelOnPages({ email, number: '' });
    const stranger = newEmail('stranger');
    const unmatched = await cancelOnPages({ email: stranger });
    expect(matched.location.replace(/receipt=[^&]+/, '')).toBe(unmatched.location.replace(/receipt=[^&]+/, ''));
    expect(unmatched.receipt).toEqual({ email: stranger, number: '', declaredAt: now() });
    for (const { ms } of [matched, unmatched]) expect(ms).toBeGreaterThanOrEqual(390);
    expect(Math.abs(matched.ms - unmatched.ms)).toBeLessThan(300);
    expect(await listCancellations(api.services.db, { email: stranger })).toEqual([
      { id: expect.stringMatching(/^cxl_/), declared_at: now(), email: stranger, number: null, name: 'Ada Lovelace', reason: null, cancel_at: 'period_end', language: 'en', subscriptions: [] },
    ]);
  });
});

describe('what the forms refuse', () => {
  const refusals = [
    { typed: { email: 'not-an-address' }, error: 'email' },
    { typed: { email: 'a@example.com', number: 'ord_test_123' }, error: 'number' },
    { typed: { email: 'a@example.com', name: '' }, error: 'name' },
    { typed: { email: 'a@example.com', name: 'n'.repeat(201) }, error: 'name' },
    { typed: { email: 'a@example.com', reason: 'r'.repeat(2001) }, error: 'reason' },
    { typed: { email: 'a@example.com', cancel_at: 'asap' }, error: 'reason_required' },
  ] as const;

  for (const { typed, error } of refusals) {
    it(`${JSON.stringify(typed).slice(0, 60)} → back to the form with error=${error}, in the page's language`, async () => {
      for (const lang of ['en', 'de'] as const) {
        const checked = await post('/cancel/check', { name: 'Ada', reason: '', number: '', cancel_at: 'period_end', ...typed, lang }, { ip: newAddress() });
        expect(checked.status).toBe(303);
        const back = new URL(checked.headers.get('location')!, ORIGIN);
        expect(back.pathname).toBe('/cancel');
        expect(back.searchParams.get('error')).toBe(error);
        expect(back.searchParams.get('lang')).toBe(lang);
        expect(back.searchParams.get('draft')).toBeTruthy();
        expect(back.hash).toBe('#form-error');
      }
    });
  }

  it('a missing `lang` takes the first of de/en in Accept-Language, else English', async () => {
    const cases = [
      ['fr-FR, de-AT;q=0.8, en;q=0.5', 'de'],
      ['fr-FR', 'en'],
      ['en-GB, de;q=0.9', 'en'],
    ] as const;
    for (const [acceptLanguage, lang] of cases) {
      const checked = await post('/cancel/check', { email: 'a@example.com', name: 'Ada' }, { ip: newAddress(), acceptLanguage });
      expect(new URL(checked.headers.get('location')!, ORIGIN).searchParams.get('lang')).toBe(lang);
    }
  });

  it('an expired or tampered draft declares nothing', async () => {
    const before = (await listCancellations(api.services.db)).length;
    const declared = await post('/cancel/declare', { draft: 'v1.abc.def.ghi', lang: 'de' }, { ip: newAddress() });
    expect(declared.status).toBe(303);
    expect(declared.headers.get('location')).toBe('/cancel?lang=de&error=expired#form-error');
    expect((await listCancellations(api.services.db)).length).toBe(before);
  });

  it('a post from another site: 403, nothing read or spent', async () => {
    const ip = newAddress();
    const refused = await post('/cancel/check', { email: 'a@example.com', name: 'A', lang: 'de' }, { ip, origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    const page = await refused.text();
    expect(page).toContain('<html lang="de">');
    expect(page).toContain('Dieses Formular wurde von einer anderen Website gesendet');
    // A hosted page's footer: the ways to withdraw (a form in English) and to cancel, in the page's language.
    expect(page).toContain('<footer><p><a href="/withdraw" lang="en">Withdraw from contract here</a><a href="/cancel?lang=de">Verträge hier kündigen</a></p></footer>');
    const english = await post('/cancel/declare', { draft: 'x' }, { ip, origin: 'https://evil.example' });
    expect(english.status).toBe(403);
    const englishPage = await english.text();
    expect(englishPage).toContain('This form was sent from another site');
    expect(englishPage).toContain('<footer><p><a href="/withdraw">Withdraw from contract here</a><a href="/cancel">Cancel contracts here</a></p></footer>');
  });

  it(`an address gets ${LIMIT} posts per window, then 429 with Retry-After`, async () => {
    const ip = newAddress();
    for (let n = 0; n < LIMIT; n++) expect((await post('/cancel/check', { email: 'a@example.com', name: 'A' }, { ip })).status).toBe(303);
    const limited = await post('/cancel/check', { email: 'a@example.com', name: 'A' }, { ip });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.text()).toContain('Too many requests');
    // Its own allowance: the withdrawal forms' is untouched.
    await expect(api.services.rateLimits.check('withdrawIp', ip)).resolves.toBeUndefined();
  });
});
