import { describe, expect, it } from 'vitest';
import { emails } from '@/db/schema';
import { eq } from 'drizzle-orm';
import { documentLanguage } from '@/server/kit/language';
import { checkPaymentMethodLink } from '@/server/kit/links';
import { enqueueEmail, enqueueWithdrawalReceived, orderReceipt } from '@/server/mail/outbox';
import { fetchPdf } from '../invoices/support';
import { epoch, expectError, T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';
import { advanceClock, CARDS, DAY, EMAILS, listEmails, MONTHLY_PLAN, payOrder, PUBLIC_BASE_URL, subscribe } from './support';

/**
 * Customer e-mails through the API: each template written by its cause (a hosted payment, a
 * subscription's charges on the test clock, a refund, a cancel, a withdrawal), in the language of
 * the page the customer paid on, and listed by GET /test_helpers/emails in test mode.
 */
const api = useTestApi({ subscriptionsEnabled: true, publicBaseUrl: PUBLIC_BASE_URL });

async function newStore(name = 'Harbour Books') {
  api.clock.set(T0);
  const store = await createStore(api.services, { name, subscriptions: true, taxCalculation: true });
  return { id: store.id, key: store.keys.sk_test, liveKey: store.keys.sk_live };
}

const FOOTER = {
  en: (store: string) =>
    [
      '----------------------------------------',
      '',
      `Merchant of record: sold by Example Payments GmbH (demo) on behalf of ${store}.`,
      '',
      'Example Payments GmbH (demo), Musterstraße 1, 10115 Berlin, Germany (demo). VAT ID: DE123456789 (demo).',
      '',
      'Questions about this e-mail? Write to billing@payments.example.',
      '',
      'These seller details are demo values of a test installation.',
      '',
      `Withdraw from contract here ${PUBLIC_BASE_URL}/withdraw`,
    ].join('\n'),
  de: (store: string) =>
    [
      '----------------------------------------',
      '',
      `Verkäufer: verkauft von Example Payments GmbH (demo) im Auftrag von ${store}.`,
      '',
      'Example Payments GmbH (demo), Musterstraße 1, 10115 Berlin, Germany (demo). USt-IdNr.: DE123456789 (demo).',
      '',
      'Fragen zu dieser E-Mail? Schreiben Sie an billing@payments.example.',
      '',
      'Diese Verkäuferangaben sind Demowerte einer Testinstallation.',
      '',
      `Vertrag hier widerrufen ${PUBLIC_BASE_URL}/withdraw`,
    ].join('\n'),
};

/** An e-mail's text from the rule above its footer on. */
const footerOf = (text: string) => text.slice(text.indexOf('\n----------------------------------------') + 1);

/** German amounts as Intl writes them: a no-break space before the euro sign. */
const nbsp = (text: string) => text.replace(/ €/g, '\u00a0€');

const NO_RELATED = { order_id: null, subscription_id: null, invoice_id: null, credit_note_id: null, payout_id: null, dispute_id: null };

/** The footer's last line in an e-mail about a subscription: the cancel page, that subscription prefilled, in the e-mail's language. */
const CANCEL_LINE = {
  en: (subscriptionId: string) => `Cancel contracts here ${PUBLIC_BASE_URL}/cancel?number=${subscriptionId}`,
  de: (subscriptionId: string) => `Verträge hier kündigen ${PUBLIC_BASE_URL}/cancel?number=${subscriptionId}&lang=de`,
};

/**
 * The signed link to give another card that an e-mail's text carries beside its label, checked as
 * the page checks it at the e-mail's time; a German e-mail's opens the page in German.
 */
function expectPaymentMethodLink(text: string, label: string, subscriptionId: string, created: number, language: 'en' | 'de'): string {
  const match = text.match(new RegExp(`${label} (\\S+)`));
  expect(match).not.toBeNull();
  const url = new URL(match![1]!);
  expect(`${url.origin}${url.pathname}`).toBe(`${PUBLIC_BASE_URL}/payment-method/${subscriptionId}`);
  expect(url.searchParams.get('lang')).toBe(language === 'de' ? 'de' : null);
  // Valid for 7 days from when the e-mail was written.
  expect(url.searchParams.get('expires')).toBe(String(created + 7 * DAY));
  const check = (at: number) => checkPaymentMethodLink(api.services.config, subscriptionId, url.searchParams.get('expires') ?? undefined, url.searchParams.get('signature') ?? undefined, at);
  expect(check(created)).toBe('valid');
  expect(check(created + 7 * DAY)).toBe('expired');
  expect(checkPaymentMethodLink(api.services.config, `${subscriptionId}x`, url.searchParams.get('expires') ?? undefined, url.searchParams.get('signature') ?? undefined, created)).toBe('invalid');
  return url.toString();
}

/** What every e-mail's HTML carries: its language, the seller, the link to withdraw. */
function expectHtmlFrame(html: string, language: 'en' | 'de', store: string) {
  expect(html).toMatch(/^<!DOCTYPE html/);
  expect(html).toContain(`<html dir="ltr" lang="${language}">`);
  expect(html).toContain(
    language === 'en' ? `Merchant of record: sold by Example Payments GmbH (demo) on behalf of ${store}.` : `Verkäufer: verkauft von Example Payments GmbH (demo) im Auftrag von ${store}.`,
  );
  expect(html).toMatch(new RegExp(`<a href="${PUBLIC_BASE_URL}/withdraw"[^>]*>${language === 'en' ? 'Withdraw from contract here' : 'Vertrag hier widerrufen'}</a>`));
}

describe('receipt of a paid order', () => {
  it('written with the payment, in English from an English page: lines, VAT, total, card, order number, seller, withdrawal link', async () => {
    const store = await newStore();
    const { orderId } = await payOrder(api, store.key, {
      email: 'Pat@Example.com',
      acceptLanguage: 'en-US,en;q=0.9',
      lines: [
        { name: 'Field guide', amount: 1999, quantity: 2, tax_rate: 19 },
        { name: 'Trail map', amount: 500 },
      ],
    });
    const [email, ...others] = await listEmails(api, store.key);
    expect(others).toEqual([]);
    expect(email).toEqual({
      id: expect.stringMatching(/^em_test_[0-9A-Za-z]{24}$/),
      object: 'email',
      template: 'receipt',
      to: 'pat@example.com',
      subject: `Your receipt from Harbour Books, order ${orderId}`,
      language: 'en',
      text: expect.any(String),
      html: expect.any(String),
      attachments: [{ filename: expect.stringMatching(/^TEST-INV-[0-9A-Z]{6}-000001\.pdf$/), content_type: 'application/pdf', size: expect.any(Number) }],
      related: { ...NO_RELATED, order_id: orderId, invoice_id: expect.stringMatching(/^in_test_/) },
      created: epoch(T0),
    });
    expect(email.text).toMatch(/\n\nYour invoice is attached \(TEST-INV-[0-9A-Z]{6}-000001\.pdf\)\./);
    expect(email.text.replace(/\n\nYour invoice is attached \(.*?\)\./, '')).toBe(
      [
        'Harbour Books',
        '',
        '',
        'Thank you for your order',
        '',
        'Your payment of €52.58 on March 1, 2026 was successful.',
        '',
        'Field guide × 2   €39.98',
        'Trail map         €5.00',
        'Subtotal          €44.98',
        'VAT               €7.60',
        'Total paid        €52.58',
        'Paid with         Visa •••• 4242',
        `Order number      ${orderId}`,
        '',
        FOOTER.en('Harbour Books'),
      ].join('\n'),
    );
    expectHtmlFrame(email.html, 'en', 'Harbour Books');
    expect(email.html).toContain(`>${orderId}</td>`);
    expect(email.html).toContain('>€52.58</td>');
  });

  it('in German from a German page, every word of it', async () => {
    const store = await newStore('Buchladen am Hafen');
    const { orderId } = await payOrder(api, store.key, { acceptLanguage: 'de-AT,de;q=0.9,en;q=0.8', lines: [{ name: 'Wanderführer', amount: 2500 }] });
    const [email] = await listEmails(api, store.key);
    expect(email).toMatchObject({ template: 'receipt', language: 'de', subject: `Ihre Zahlungsbestätigung von Buchladen am Hafen, Bestellung ${orderId}`, to: 'pat@example.com' });
    expect(email.text).toMatch(/\n\nIhre Rechnung ist beigefügt \(TEST-INV-[0-9A-Z]{6}-000001\.pdf\)\./);
    expect(email.text.replace(/\n\nIhre Rechnung ist beigefügt \(.*?\)\./, '')).toBe(
      nbsp(
        [
          'Buchladen am Hafen',
          '',
          '',
          'Vielen Dank für Ihre Bestellung',
          '',
          'Ihre Zahlung über 25,00 € vom 1. März 2026 war erfolgreich.',
          '',
          'Wanderführer    25,00 €',
          'Bezahlt         25,00 €',
          'Bezahlt mit     Visa •••• 4242',
          `Bestellnummer   ${orderId}`,
          '',
          FOOTER.de('Buchladen am Hafen'),
        ].join('\n'),
      ),
    );
    expectHtmlFrame(email.html, 'de', 'Buchladen am Hafen');
  });

  it('a page without Accept-Language, or in a language we do not write, gets English; the first of ours by q-value wins', async () => {
    const store = await newStore();
    await payOrder(api, store.key, { email: 'none@example.com' });
    await payOrder(api, store.key, { email: 'fr@example.com', acceptLanguage: 'fr-FR,fr;q=0.9' });
    await payOrder(api, store.key, { email: 'frde@example.com', acceptLanguage: 'fr;q=0.9, de;q=0.5, en;q=0.1' });
    const languages = Object.fromEntries((await listEmails(api, store.key)).map((email) => [email.to, email.language]));
    expect(languages).toEqual({ 'none@example.com': 'en', 'fr@example.com': 'en', 'frde@example.com': 'de' });
    expect(documentLanguage('en;q=0.2, de-CH;q=0.8')).toBe('de');
    expect(documentLanguage('*, x-klingon')).toBe('en');
  });

  it('a declined payment writes no e-mail', async () => {
    const store = await newStore();
    const { location } = await payOrder(api, store.key, { card: CARDS.declined });
    expect(location).toContain('error=card_declined');
    expect(await listEmails(api, store.key)).toEqual([]);
  });
});

describe('subscription e-mails on the test clock', () => {
  it('receipts of the first charge and each renewal, and one renewal reminder 7 days before each renewal', async () => {
    const store = await newStore();
    const subscriptionId = await subscribe(api, store.key, { acceptLanguage: 'de-DE' });
    const [first] = await listEmails(api, store.key);
    expect(first).toMatchObject({
      template: 'receipt',
      to: 'ada@example.com',
      language: 'de',
      subject: 'Ihre Zahlungsbestätigung von Harbour Books: Pro plan, Zahlung 1 von 12',
      attachments: [{ filename: expect.stringMatching(/^TEST-INV-[0-9A-Z]{6}-000001\.pdf$/), content_type: 'application/pdf', size: expect.any(Number) }],
      related: { ...NO_RELATED, subscription_id: subscriptionId, invoice_id: expect.stringMatching(/^in_test_/) },
      created: epoch(T0),
    });
    expect(first.text).toContain(
      nbsp(
        [
          'Ihre Zahlung über 9,90 € für Pro plan vom 1. März 2026 war erfolgreich.',
          '',
          'Tarif         Pro plan',
          'Zahlung       1 von 12',
          'Zeitraum      1. März 2026 – 1. April 2026',
          'Bezahlt       9,90 €',
          'Bezahlt mit   Visa •••• 4242',
          `Abonnement    ${subscriptionId}`,
        ].join('\n'),
      ),
    );
    // About a subscription: the cancel page beside the withdrawal, that subscription prefilled, in German.
    expect(footerOf(first.text)).toBe(`${FOOTER.de('Harbour Books')}\n\n${CANCEL_LINE.de(subscriptionId)}`);
    expect(first.html).toMatch(new RegExp(`<a href="${PUBLIC_BASE_URL}/cancel\\?number=${subscriptionId}&amp;lang=de"[^>]*>Verträge hier kündigen</a>`));

    // The renewal is on 1 April: 23 days on, it is 8 days ahead; a day later, 7.
    await advanceClock(api, store.key, 23 * DAY);
    expect(await listEmails(api, store.key, '?template=renewal_reminder')).toEqual([]);
    await advanceClock(api, store.key, DAY);
    const [reminder, ...more] = await listEmails(api, store.key, '?template=renewal_reminder');
    expect(more).toEqual([]);
    expect(reminder).toMatchObject({
      language: 'de',
      subject: 'Pro plan bei Harbour Books verlängert sich am 1. April 2026',
      related: { ...NO_RELATED, subscription_id: subscriptionId },
      created: epoch(T0) + 24 * DAY,
    });
    const updateUrl = expectPaymentMethodLink(reminder.text, 'Zahlungsmethode aktualisieren', subscriptionId, reminder.created, 'de');
    expect(reminder.text).toContain(
      nbsp(
        [
          'Pro plan verlängert sich am 1. April 2026: 9,90 € werden von Ihrer Karte abgebucht.',
          '',
          'Wenn Sie fortfahren möchten, ist nichts zu tun. Um mit einer anderen Karte zu zahlen oder vorher zu kündigen:',
          '',
          `Zahlungsmethode aktualisieren ${updateUrl}`,
          '',
          CANCEL_LINE.de(subscriptionId),
          '',
        ].join('\n'),
      ),
    );
    expect(reminder.text).toContain('Zahlung           2 von 12');
    expect(footerOf(reminder.text)).toBe(`${FOOTER.de('Harbour Books')}\n\n${CANCEL_LINE.de(subscriptionId)}`);
    expect(reminder.html).toContain(`<a href="${updateUrl.replaceAll('&', '&amp;')}"`);

    // Once per period, however often time moves within it.
    await advanceClock(api, store.key, DAY);
    await advanceClock(api, store.key, 3 * DAY);
    expect(await listEmails(api, store.key, '?template=renewal_reminder')).toHaveLength(1);

    // 1 April: the renewal, then the next reminder on 24 April for 1 May.
    await advanceClock(api, store.key, 3 * DAY);
    const [renewal] = await listEmails(api, store.key, '?template=receipt');
    expect(renewal).toMatchObject({ subject: 'Ihre Zahlungsbestätigung von Harbour Books: Pro plan, Zahlung 2 von 12', created: epoch(T0) + 31 * DAY });
    expect(renewal.text).toContain('Zeitraum      1. April 2026 – 1. Mai 2026');
    await advanceClock(api, store.key, 23 * DAY);
    const reminders = await listEmails(api, store.key, '?template=renewal_reminder');
    expect(reminders.map((email) => email.subject)).toEqual(['Pro plan bei Harbour Books verlängert sich am 1. Mai 2026', 'Pro plan bei Harbour Books verlängert sich am 1. April 2026']);
    expect(reminders[0].text).toContain('Zahlung           3 von 12');
    // Each reminder's link was made when it was written: the first shows the same one however often it is read.
    expect(reminders[1].text).toContain(`Zahlungsmethode aktualisieren ${updateUrl}`);
    expect(expectPaymentMethodLink(reminders[0].text, 'Zahlungsmethode aktualisieren', subscriptionId, reminders[0].created, 'de')).not.toBe(updateUrl);
  });

  it('no reminder for a plan shorter than a month, nor for a subscription with no payment left', async () => {
    const store = await newStore();
    await subscribe(api, store.key, { plan: { ...MONTHLY_PLAN, interval: 'week', interval_count: 3, customer_email: 'weekly@example.com' } });
    await subscribe(api, store.key, { plan: { ...MONTHLY_PLAN, total_payments: 1, customer_email: 'once@example.com' } });
    await subscribe(api, store.key, { plan: { ...MONTHLY_PLAN, interval: 'day', interval_count: 28, customer_email: 'fourweekly@example.com' } });
    await advanceClock(api, store.key, 22 * DAY);
    const reminders = await listEmails(api, store.key, '?template=renewal_reminder');
    expect(reminders.map((email) => [email.to, email.created])).toEqual([['fourweekly@example.com', epoch(T0) + 22 * DAY]]);
  });

  it('payment_failed for each declined renewal with the retry dates left, then the cancellation after the last', async () => {
    const store = await newStore();
    const subscriptionId = await subscribe(api, store.key, { card: CARDS.declinesRecurring, acceptLanguage: 'en-GB' });
    await advanceClock(api, store.key, 31 * DAY);
    const [failed] = await listEmails(api, store.key, '?template=payment_failed');
    expect(failed).toMatchObject({
      to: 'ada@example.com',
      language: 'en',
      subject: 'Your payment for Pro plan at Harbour Books failed',
      related: { ...NO_RELATED, subscription_id: subscriptionId },
      created: epoch(T0) + 31 * DAY,
    });
    const updateUrl = expectPaymentMethodLink(failed.text, 'Update payment method', subscriptionId, failed.created, 'en');
    expect(failed.text).toContain(
      [
        'We could not charge €9.90 for Pro plan on April 1, 2026.',
        '',
        'We will try again on these dates. Please make sure your card can be charged; if every attempt fails, the subscription is canceled.',
        '',
        `Update payment method ${updateUrl}`,
        '',
        'Attempt 1      April 2, 2026',
        'Attempt 2      April 4, 2026',
        'Attempt 3      April 6, 2026',
        'Attempt 4      April 8, 2026',
        'Plan           Pro plan',
        'Amount         €9.90',
        `Subscription   ${subscriptionId}`,
      ].join('\n'),
    );
    expect(footerOf(failed.text)).toBe(`${FOOTER.en('Harbour Books')}\n\n${CANCEL_LINE.en(subscriptionId)}`);
    expect(failed.html).toMatch(new RegExp(`<a href="${PUBLIC_BASE_URL}/cancel\\?number=${subscriptionId}"[^>]*>Cancel contracts here</a>`));

    await advanceClock(api, store.key, DAY);
    const [second] = await listEmails(api, store.key, '?template=payment_failed&limit=1');
    expect(second.text).toContain(['Attempt 1      April 4, 2026', 'Attempt 2      April 6, 2026', 'Attempt 3      April 8, 2026', 'Plan '].join('\n'));

    // The last three retries at once: three more failures, the last with no retry left, and the cancellation.
    await advanceClock(api, store.key, 6 * DAY);
    const failures = await listEmails(api, store.key, '?template=payment_failed');
    expect(failures).toHaveLength(5);
    const last = failures.find((email) => email.text.includes('That was the last attempt'));
    expect(last.text).toContain(['That was the last attempt: the subscription is canceled and will not be charged again.', '', 'Plan           Pro plan', 'Amount         €9.90'].join('\n'));
    expect(last.text).not.toContain('Attempt 1');
    // Nothing left to pay for: no card to give, but still the way to cancel in the footer.
    expect(last.text).not.toContain('Update payment method');
    expect(last.text).not.toContain('/payment-method/');
    expect(footerOf(last.text)).toBe(`${FOOTER.en('Harbour Books')}\n\n${CANCEL_LINE.en(subscriptionId)}`);
    const [canceled, ...more] = await listEmails(api, store.key, '?template=subscription_canceled');
    expect(more).toEqual([]);
    expect(canceled).toMatchObject({ subject: 'Your subscription Pro plan at Harbour Books is canceled', created: epoch(T0) + 38 * DAY });
    expect(canceled.text).toContain('Pro plan was canceled on April 8, 2026 because its payment failed repeatedly. You will not be charged again.');
  });

  it('payment_failed in German: its link opens the update page in German (`&lang=de`), its signature unchanged', async () => {
    const store = await newStore();
    const subscriptionId = await subscribe(api, store.key, { card: CARDS.declinesRecurring, acceptLanguage: 'de-DE' });
    await advanceClock(api, store.key, 31 * DAY);
    const [failed] = await listEmails(api, store.key, '?template=payment_failed');
    expect(failed).toMatchObject({ language: 'de', subject: 'Ihre Zahlung für Pro plan bei Harbour Books ist fehlgeschlagen', created: epoch(T0) + 31 * DAY });
    const updateUrl = expectPaymentMethodLink(failed.text, 'Zahlungsmethode aktualisieren', subscriptionId, failed.created, 'de');
    expect(updateUrl).toMatch(new RegExp(`^${PUBLIC_BASE_URL}/payment-method/${subscriptionId}\\?expires=\\d+&signature=[\\w-]+&lang=de$`));
    expect(failed.text).toContain(
      nbsp(
        [
          'Wir konnten 9,90 € für Pro plan am 1. April 2026 nicht einziehen.',
          '',
          'Wir versuchen es an diesen Tagen erneut. Bitte sorgen Sie dafür, dass Ihre Karte belastet werden kann; schlagen alle Versuche fehl, wird das Abonnement gekündigt.',
          '',
          `Zahlungsmethode aktualisieren ${updateUrl}`,
        ].join('\n'),
      ),
    );
    expect(failed.html).toContain(`<a href="${updateUrl.replaceAll('&', '&amp;')}"`);
  });

  it('subscription_canceled when the merchant cancels it', async () => {
    const store = await newStore();
    const subscriptionId = await subscribe(api, store.key, { acceptLanguage: 'de' });
    await advanceClock(api, store.key, 2 * DAY);
    const response = await api.request('DELETE', `/api/v1/subscriptions/${subscriptionId}`, { key: store.key, body: { reason: 'customer asked' } });
    expect(response.status).toBe(200);
    const [canceled] = await listEmails(api, store.key, '?template=subscription_canceled');
    expect(canceled).toMatchObject({
      language: 'de',
      subject: 'Ihr Abonnement Pro plan bei Harbour Books ist gekündigt',
      related: { ...NO_RELATED, subscription_id: subscriptionId },
      created: epoch(T0) + 2 * DAY,
    });
    expect(canceled.text).toContain(
      ['Pro plan wurde am 3. März 2026 gekündigt. Es werden keine weiteren Zahlungen eingezogen.', '', 'Tarif          Pro plan', 'Gekündigt am   3. März 2026'].join('\n'),
    );
    // A second cancel changes nothing and mails nothing.
    await api.request('DELETE', `/api/v1/subscriptions/${subscriptionId}`, { key: store.key });
    expect(await listEmails(api, store.key, '?template=subscription_canceled')).toHaveLength(1);
  });
});

describe('refunds and withdrawals', () => {
  it('refund: each succeeded refund, with what was refunded of the order so far', async () => {
    const store = await newStore();
    const { orderId } = await payOrder(api, store.key, { lines: [{ name: 'Field guide', amount: 3000 }] });
    api.clock.set(new Date(T0.getTime() + DAY * 1000));
    const partial = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: orderId, amount: 1000 } });
    expect(partial.body.status).toBe('succeeded');
    const [refund] = await listEmails(api, store.key, '?template=refund');
    expect(refund).toMatchObject({
      to: 'pat@example.com',
      language: 'en',
      subject: `Your refund from Harbour Books, order ${orderId}`,
      attachments: [{ filename: expect.stringMatching(/^TEST-CN-[0-9A-Z]{6}-000001\.pdf$/), content_type: 'application/pdf', size: expect.any(Number) }],
      related: { ...NO_RELATED, order_id: orderId, credit_note_id: expect.stringMatching(/^cn_test_/) },
      created: epoch(T0) + DAY,
    });
    expect(refund.text).toContain(
      [
        `We refunded €10.00 for order ${orderId} to the card you paid with.`,
        '',
        'It can take 5 to 10 business days to appear on your statement.',
        '',
        'Refunded       €10.00',
        'Order total    €30.00',
        'Refunded on    March 2, 2026',
        `Order number   ${orderId}`,
      ].join('\n'),
    );
    api.clock.set(new Date(T0.getTime() + 2 * DAY * 1000));
    const rest = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: orderId } });
    expect(rest.body.status).toBe('succeeded');
    const [second] = await listEmails(api, store.key, '?template=refund');
    expect(second.text).toContain(['Refunded            €20.00', 'Order total         €30.00', 'Refunded in total   €30.00'].join('\n'));
  });

  it('withdrawal_received: the exported enqueue writes it in the order customer’s language, in the caller’s transaction', async () => {
    const store = await newStore();
    const { orderId } = await payOrder(api, store.key, { acceptLanguage: 'de-DE' });
    const requestedAt = new Date(T0.getTime() + 3 * DAY * 1000 + 90 * 60 * 1000);
    const refundDueBy = new Date(requestedAt.getTime() + 14 * DAY * 1000);
    const scope = { storeId: store.id, livemode: false };
    const written = await api.services.db.transaction((tx) =>
      enqueueWithdrawalReceived(tx, { ...scope, orderId, requestedAt, refundDueBy, reason: 'Changed my mind' }, { now: requestedAt, wallNow: api.clock.now() }),
    );
    expect(written).toBe(true);
    const [email] = await listEmails(api, store.key, '?template=withdrawal_received');
    expect(email).toMatchObject({
      to: 'pat@example.com',
      language: 'de',
      subject: `Ihr Widerruf der Bestellung ${orderId} ist eingegangen`,
      attachments: [],
      related: { ...NO_RELATED, order_id: orderId },
      created: epoch(requestedAt),
    });
    expect(email.text).toContain(
      [
        `Ihr Widerruf der Bestellung ${orderId} ist am 4. März 2026 um 13:30 UTC eingegangen.`,
        '',
        'Sie erhalten Ihre Zahlung spätestens bis zum 18. März 2026 auf die Karte erstattet, mit der Sie bezahlt haben.',
        '',
        'Eingegangen      4. März 2026 um 13:30 UTC',
        'Erstattung bis   18. März 2026',
        'Ihr Grund        Changed my mind',
        `Bestellnummer    ${orderId}`,
      ].join('\n'),
    );
    expectHtmlFrame(email.html, 'de', 'Harbour Books');

    // A rolled back request mails nothing; an order of another store is not mailed.
    await expect(
      api.services.db.transaction(async (tx) => {
        await enqueueWithdrawalReceived(tx, { ...scope, orderId, requestedAt, refundDueBy, reason: null }, { now: requestedAt, wallNow: api.clock.now() });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const other = await newStore('Other Store');
    expect(
      await api.services.db.transaction((tx) =>
        enqueueWithdrawalReceived(tx, { storeId: other.id, livemode: false, orderId, requestedAt, refundDueBy, reason: null }, { now: requestedAt, wallNow: api.clock.now() }),
      ),
    ).toBe(false);
    expect(await listEmails(api, store.key, '?template=withdrawal_received')).toHaveLength(1);
    expect(await listEmails(api, other.key)).toEqual([]);
  });
});

describe('attachments', () => {
  it("a receipt carries the order's invoice and a refund e-mail the refund's credit note, as PDFs in the customer's language", async () => {
    const store = await newStore();
    const { orderId } = await payOrder(api, store.key, { acceptLanguage: 'de-DE' });
    const order = (await api.request('GET', `/api/v1/orders/${orderId}`, { key: store.key })).body;
    const invoice = (await api.request('GET', `/api/v1/invoices/${order.invoice_id}`, { key: store.key })).body;
    const refunded = await api.request('POST', '/api/v1/refunds', { key: store.key, body: { order_id: orderId } });
    expect(refunded.body.status).toBe('succeeded');
    const note = (await api.request('GET', `/api/v1/credit_notes/${refunded.body.credit_note_id}`, { key: store.key })).body;

    const [receipt] = await listEmails(api, store.key, '?template=receipt');
    const invoicePdf = await fetchPdf(api, `/api/v1/invoices/${invoice.id}/pdf`, store.key);
    expect(receipt).toMatchObject({
      related: { ...NO_RELATED, order_id: orderId, invoice_id: invoice.id },
      attachments: [{ filename: `${invoice.number}.pdf`, content_type: 'application/pdf', size: invoicePdf.bytes.length }],
    });
    expect(receipt.text).toContain(`Ihre Rechnung ist beigefügt (${invoice.number}.pdf).`);

    const [refund] = await listEmails(api, store.key, '?template=refund');
    expect(refund).toMatchObject({
      related: { ...NO_RELATED, order_id: orderId, credit_note_id: note.id },
      attachments: [{ filename: `${note.number}.pdf`, content_type: 'application/pdf' }],
    });
    expect(refund.attachments[0].size).toBeGreaterThan(1000);
  });
});

describe('GET /test_helpers/emails', () => {
  it('newest first, filtered by recipient (any case) and template, paged like every list', async () => {
    const store = await newStore();
    await payOrder(api, store.key, { email: 'a@example.com' });
    api.clock.set(new Date(T0.getTime() + 60_000));
    await payOrder(api, store.key, { email: 'b@example.com' });
    api.clock.set(new Date(T0.getTime() + 120_000));
    await payOrder(api, store.key, { email: 'a@example.com' });
    const all = await listEmails(api, store.key);
    expect(all.map((email) => [email.to, email.created])).toEqual([
      ['a@example.com', epoch(T0) + 120],
      ['b@example.com', epoch(T0) + 60],
      ['a@example.com', epoch(T0)],
    ]);
    expect((await listEmails(api, store.key, '?to=A@EXAMPLE.com')).map((email) => email.id)).toEqual([all[0].id, all[2].id]);
    expect(await listEmails(api, store.key, '?to=nobody@example.com')).toEqual([]);
    expect(await listEmails(api, store.key, '?template=refund')).toEqual([]);
    expect((await listEmails(api, store.key, '?template=receipt&to=b@example.com')).map((email) => email.id)).toEqual([all[1].id]);
    expect((await listEmails(api, store.key, `?created_gte=${epoch(T0) + 60}`)).map((email) => email.id)).toEqual([all[0].id, all[1].id]);

    const page = await api.request('GET', `${EMAILS}?limit=2`, { key: store.key });
    expect(page.body).toMatchObject({ object: 'list', has_more: true, url: '/api/v1/test_helpers/emails', livemode: false });
    expect(page.body.data.map((email: { id: string }) => email.id)).toEqual([all[0].id, all[1].id]);
    const next = await api.request('GET', `${EMAILS}?limit=2&starting_after=${all[1].id}`, { key: store.key });
    expect(next.body).toMatchObject({ has_more: false });
    expect(next.body.data.map((email: { id: string }) => email.id)).toEqual([all[2].id]);
  });

  it('bad input: 400 naming the parameter; an unknown cursor 404; a live key 403 test_mode_only; no key 401', async () => {
    const store = await newStore();
    expectError(await api.request('GET', `${EMAILS}?template=invoice`, { key: store.key }), 400, 'parameter_invalid', 'template');
    expectError(await api.request('GET', `${EMAILS}?to=not-an-address`, { key: store.key }), 400, 'parameter_invalid', 'to');
    expectError(await api.request('GET', `${EMAILS}?limit=101`, { key: store.key }), 400, 'parameter_invalid', 'limit');
    expectError(await api.request('GET', `${EMAILS}?status=sent`, { key: store.key }), 400, 'parameter_invalid', 'status');
    expectError(await api.request('GET', `${EMAILS}?starting_after=em_test_unknown000000000000000`, { key: store.key }), 404, 'resource_missing', 'starting_after');
    const live = await api.request('GET', EMAILS, { key: store.liveKey });
    expectError(live, 403, 'test_mode_only');
    expect(live.body.error.type).toBe('invalid_request_error');
    expectError(await api.request('GET', EMAILS), 401, 'missing_api_key');
  });

  it('a store sees its own test-mode e-mails only; live-mode e-mails are never listed', async () => {
    const store = await newStore();
    const other = await newStore('Other Store');
    const { orderId } = await payOrder(api, other.key);
    await api.services.db.transaction((tx) =>
      enqueueEmail(
        tx,
        orderReceipt(
          { storeId: store.id, livemode: true, id: 'ord_live_x', customerEmail: 'live@example.com', language: 'en' },
          { lines: [], amountSubtotal: 100, amountTax: 0, amountTotal: 100, card: null },
          { now: T0, wallNow: T0 },
        ),
      ),
    );
    expect(await listEmails(api, store.key)).toEqual([]);
    expect((await listEmails(api, other.key)).map((email) => email.related.order_id)).toEqual([orderId]);
    const [row] = await api.services.db.select().from(emails).where(eq(emails.toAddress, 'live@example.com'));
    expect(row).toMatchObject({ livemode: true, storeId: store.id, status: 'pending' });
  });
});
