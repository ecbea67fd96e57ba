import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { Browser, Locator } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaymentMethodLink } from '@/server/kit/links';
import { enqueueWithdrawalReceived } from '@/server/mail/outbox';
import { epoch, T0 } from '../support/api';
import { chromiumAvailable, launchChromium, screenshotAtWidths, stopStarted, type LaunchedBrowser } from '../support/browser';
import { createStore } from '../support/factories';
import { callService, freePort, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, type Service } from '../support/production-server';
import { useTestApi } from '../support/server';
import { advanceClock, CARDS, DAY, listEmails, payOrder, PUBLIC_BASE_URL, subscribe } from '../mail/support';

/**
 * Customer e-mail seen as the customer sees it. End to end: a German browser pays on the hosted
 * page of the real production server (`npm start`, background work in-process), and the receipt
 * arrives in German at a local SMTP server and in the test-mode outbox. Then every template, in
 * both languages, is opened in Chromium at desktop and phone width. EMAIL_SCREENSHOTS=<dir> keeps
 * the screenshots for a person to look at.
 */
const SCREENSHOTS = process.env.EMAIL_SCREENSHOTS;
const received: ParsedMail[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', async () => {
      received.push(await simpleParser(Buffer.concat(chunks)));
      callback();
    });
  },
});

let port = 0;
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let chromium: LaunchedBrowser;
let browser: Browser;
let sk = '';

beforeAll(async () => {
  if (!chromiumAvailable()) throw new Error('Debian chromium is missing: apt-get install chromium (.ci/run does).');
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  port = await freePort();
  const storage = await serviceStorage('emails-browser');
  cleanupStorage = storage.cleanup;
  const env = serviceEnv({
    ...storage.env,
    PORT: String(port),
    AUTH_SECRET: 'browser-test-auth-secret',
    SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    SMTP_SEND_TEST_MODE: 'true',
    EMAIL_FROM: 'Harbour Commerce <receipts@harbour.example>',
    OPERATOR_LEGAL_NAME: 'Harbour Commerce Ltd',
    OPERATOR_ADDRESS: '1 Quay Street, Dublin, Ireland',
    OPERATOR_VAT_ID: 'IE1234567T',
    OPERATOR_EMAIL: 'help@harbour.example',
  });
  [service, chromium] = await Promise.all([startService(env), launchChromium()]);
  browser = chromium.browser;
  sk = /^ {2}sk_test {2}(\S+)$/m.exec(service.output())![1]!;
}, START_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await stopStarted({ chromium, service, cleanupStorage });
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
}, 60_000);

/** The link's href when the page shows it, else null. */
async function hrefOf(link: Locator): Promise<string | null> {
  return (await link.count()) === 0 ? null : link.getAttribute('href');
}

/**
 * An e-mail's HTML opened as a mail client shows it, on a page of its own at phone width: the
 * withdrawal link is there (its href answered), the cancel and update-payment-method links when
 * it has them, and nothing is wider than the screen.
 */
async function openEmail(email: { html: string; language: 'en' | 'de' }, name: string): Promise<{ href: string | null; sellerShown: boolean; cancelHref?: string | null; updateHref?: string | null }> {
  const page = await browser.newPage({ viewport: { width: 375, height: 900 } });
  try {
    await page.setContent(email.html);
    const withdraw = page.getByRole('link', { name: email.language === 'en' ? 'Withdraw from contract here' : 'Vertrag hier widerrufen' });
    await expect.poll(() => withdraw.isVisible()).toBe(true);
    const wider = await page.evaluate(() =>
      [...document.querySelectorAll('body *')].filter((element) => element.getBoundingClientRect().right > 375).map((element) => `${element.tagName}: ${element.textContent?.slice(0, 40)}`),
    );
    expect(wider).toEqual([]);
    if (SCREENSHOTS) await screenshotAtWidths(page, SCREENSHOTS, name);
    const seller = email.language === 'en' ? /^Merchant of record: sold by .+ on behalf of .+\.$/ : /^Verkäufer: verkauft von .+ im Auftrag von .+\.$/;
    // The footer's, the last (a renewal reminder has one in its text too).
    const cancelHref = await hrefOf(page.getByRole('link', { name: email.language === 'en' ? 'Cancel contracts here' : 'Verträge hier kündigen' }).last());
    const updateHref = await hrefOf(page.getByRole('link', { name: email.language === 'en' ? 'Update payment method' : 'Zahlungsmethode aktualisieren' }));
    return {
      href: await withdraw.getAttribute('href'),
      sellerShown: await page.getByText(seller).isVisible(),
      ...(cancelHref === null ? {} : { cancelHref }),
      ...(updateHref === null ? {} : { updateHref }),
    };
  } finally {
    await page.close();
  }
}

describe('npm start: a German customer pays on the hosted page', () => {
  it('the receipt goes out by SMTP in German, with the operator as seller, and is listed in the outbox', async () => {
    const origin = `http://127.0.0.1:${port}`;
    const product = await callService(origin, sk, 'POST', '/api/v1/products', { name: 'Wanderkarte Alpen', amount: 1250 });
    expect(product.status).toBe(201);
    const session = await callService(origin, sk, 'POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, quantity: 2, customer_email: 'kunde@example.de' });
    expect(session.status).toBe(201);

    const context = await browser.newContext({ locale: 'de-DE', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(session.body.url);
    await page.getByLabel('Card number').fill(CARDS.approved);
    await page.getByLabel('Expiry').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await Promise.all([page.waitForURL(/\/checkout\/cs_test_[^/]+\/receipt/), page.getByRole('button', { name: /^Pay/ }).click()]);

    await expect.poll(() => received.length, { timeout: 30_000 }).toBe(1);
    const mail = received[0]!;
    const listed = await callService(origin, sk, 'GET', '/api/v1/test_helpers/emails?to=kunde@example.de');
    expect(listed.status).toBe(200);
    const [email] = listed.body.data;
    const order = await callService(origin, sk, 'GET', `/api/v1/orders/${session.body.order_id}`);
    expect(order.body.invoice_id).toMatch(/^in_test_/);
    expect(email).toMatchObject({
      object: 'email',
      template: 'receipt',
      to: 'kunde@example.de',
      language: 'de',
      subject: `Ihre Zahlungsbestätigung von Demo Store, Bestellung ${session.body.order_id}`,
      related: { order_id: session.body.order_id, subscription_id: null, invoice_id: order.body.invoice_id, credit_note_id: null, payout_id: null },
    });
    expect(mail.messageId).toBe(`<${email.id}@localhost>`);
    expect(mail.from?.value).toEqual([{ address: 'receipts@harbour.example', name: 'Harbour Commerce' }]);
    expect(mail.subject).toBe(email.subject);
    expect(mail.text).toBe(email.text);
    expect(mail.html).toBe(email.html);
    expect(mail.text).toContain('Wanderkarte Alpen × 2   25,00\u00a0€');
    expect(mail.text).toContain('Verkäufer: verkauft von Harbour Commerce Ltd im Auftrag von Demo Store.');
    expect(mail.text).toContain(`Vertrag hier widerrufen http://localhost:${port}/withdraw`);

    await context.close();
    expect(await openEmail(email, 'receipt-de-production')).toEqual({ href: `http://localhost:${port}/withdraw`, sellerShown: true });
  });
});

describe('every template in Chromium', () => {
  const api = useTestApi({ subscriptionsEnabled: true, publicBaseUrl: PUBLIC_BASE_URL });

  it('receipt, payment_failed, renewal_reminder, refund, subscription_canceled and withdrawal_received, in English and German', async () => {
    const written = [];
    for (const [language, acceptLanguage] of [
      ['en', 'en-GB'],
      ['de', 'de-DE'],
    ] as const) {
      api.clock.set(T0);
      const store = await createStore(api.services, { name: 'Harbour Books', subscriptions: true, taxCalculation: true });
      const key = store.keys.sk_test;
      const { orderId } = await payOrder(api, key, {
        acceptLanguage,
        lines: [
          { name: 'Field guide to moths', amount: 1999, quantity: 2, tax_rate: 19 },
          { name: 'Trail map', amount: 500 },
        ],
      });
      const refunded = await api.request('POST', '/api/v1/refunds', { key, body: { order_id: orderId, amount: 500 } });
      expect(refunded.status).toBe(201);
      await api.services.db.transaction((tx) =>
        enqueueWithdrawalReceived(
          tx,
          { storeId: store.id, livemode: false, orderId, requestedAt: T0, refundDueBy: new Date(T0.getTime() + 14 * DAY * 1000), reason: 'Ordered twice' },
          { now: T0, wallNow: T0 },
        ),
      );
      const canceled = await subscribe(api, key, { acceptLanguage });
      expect((await api.request('DELETE', `/api/v1/subscriptions/${canceled}`, { key })).status).toBe(200);
      await subscribe(api, key, { acceptLanguage, card: CARDS.declinesRecurring });
      await advanceClock(api, key, 24 * DAY);
      await advanceClock(api, key, 7 * DAY);

      const emails = await listEmails(api, key, '?limit=100');
      const templates = new Set(emails.map((email) => email.template));
      expect(templates).toEqual(new Set(['receipt', 'payment_failed', 'renewal_reminder', 'refund', 'subscription_canceled', 'withdrawal_received']));
      for (const email of emails) expect(email.language).toBe(language);
      written.push(...emails.map((email) => ({ ...email, name: `${email.template}-${email.related.order_id ? 'order' : 'subscription'}-${language}` })));
    }

    const seen = new Set<string>();
    for (const email of written) {
      // One of each kind per language (the renewal's receipt looks like the first charge's).
      if (seen.has(email.name)) continue;
      seen.add(email.name);
      const subscriptionId = email.related.subscription_id;
      const shown = await openEmail(email, email.name);
      expect(shown).toEqual({
        href: `${PUBLIC_BASE_URL}/withdraw`,
        sellerShown: true,
        // About a subscription: the cancel page, that subscription prefilled, in the e-mail's language.
        ...(subscriptionId ? { cancelHref: `${PUBLIC_BASE_URL}/cancel?number=${subscriptionId}${email.language === 'de' ? '&lang=de' : ''}` } : {}),
        // A renewal ahead, or a retry: a signed link to give another card; not after the last attempt.
        ...(email.template === 'renewal_reminder' || (email.template === 'payment_failed' && !email.text.includes(email.language === 'en' ? 'last attempt' : 'letzte Versuch'))
          ? { updateHref: expect.stringMatching(new RegExp(`^${PUBLIC_BASE_URL}/payment-method/${subscriptionId}\\?expires=\\d+&signature=`)) }
          : {}),
      });
      if (shown.updateHref) {
        const link = new URL(shown.updateHref);
        const check = checkPaymentMethodLink(api.services.config, subscriptionId, link.searchParams.get('expires') ?? undefined, link.searchParams.get('signature') ?? undefined, email.created);
        expect(check).toBe('valid');
      }
    }
    expect(seen.size).toBe(14);
    expect(written.find((email) => email.template === 'renewal_reminder')!.created).toBe(epoch(T0) + 24 * DAY);
  }, 180_000);
});
