import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { invitedDashboardPage, postedFields, screenshotAtWidths } from '../../support/browser';
import { adminClient, callService, payOnHostedPage } from '../../support/production-server';
import { pdfPages } from '../../invoices/support';
import { ADMIN_TOKEN, browser, origin } from './server';

/**
 * The dashboard's Balance and payout pages in Debian's Chromium against `npm start`: an owner
 * sees two test payments pending, is refused a payout below the minimum, sees them available once
 * the test clock has moved, presses Pay out now (a double submit making one payout), opens the
 * payout, downloads its statement and the ledger's CSV; live mode shows its hold and asks for
 * confirmation; a support person has no Balance link and every page, file and post is 403.
 */
const SHOTS = '/tmp/shots-balance';
const DAY = 86_400;

const shoot = (page: Page, name: string) => screenshotAtWidths(page, SHOTS, name);

/** 20.00 EUR + 19% VAT: 23.80 paid, 3.80 VAT, fee 5% (1.19) + 0.50: 18.31 net. */
const NET = 2380 - 380 - 169;

/** Seconds from `now` (epoch seconds) to the next Monday 00:00 UTC. */
function secondsToMonday(now: number): number {
  const at = new Date(now * 1000);
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()) / 1000;
  return midnight + ((8 - at.getUTCDay()) % 7 || 7) * DAY - now;
}

/**
 * Moves the store's test clock a week (the payout hold) without the weekly schedule paying out:
 * first just past the next Monday while the payments are still held (that Monday's pass finds
 * nothing available), then the rest of the week, which ends before the Monday after.
 */
async function releaseHeldPayments(key: string): Promise<void> {
  const advance = async (seconds: number) => expect((await callService(origin, key, 'POST', '/api/v1/test_helpers/advance_clock', { seconds })).status).toBe(200);
  let toMonday = secondsToMonday(Math.floor(Date.now() / 1000));
  // Within two minutes of a Monday, before or after it, both moves do not fit in the week: wait
  // until two minutes after it.
  if (toMonday < 120 || toMonday > 7 * DAY - 120) {
    const wait = (toMonday < 120 ? toMonday : toMonday - 7 * DAY) + 122;
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    toMonday = secondsToMonday(Math.floor(Date.now() / 1000));
  }
  await advance(toMonday + 5);
  await advance(7 * DAY - toMonday - 5);
}

const mainText = (page: Page) => page.locator('main').innerText();
const tableRows = (page: Page, section: string) => page.getByRole('region', { name: section, exact: true }).locator('.dash-table tbody tr');

export function balanceSuite(): void {
  describe('dashboard balance and payouts', { timeout: 300_000 }, () => {
    it('balance, Pay out now (refused, then once for a double submit), the payout page, its statement, the CSV, live mode, and a support person refused', async () => {
      const admin = adminClient(origin, ADMIN_TOKEN);
      const store = await admin.store.create.mutate({ name: 'Harbour Books', taxCalculation: true });
      const owner = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'beatrix@example.com', role: 'owner' });
      const key = store.keys.sk_test;

      const product = await callService(origin, key, 'POST', '/api/v1/products', { name: 'Tide tables', amount: 2000, tax_rate: 19 });
      for (const email of ['first@example.com', 'second@example.com']) {
        const session = await callService(origin, key, 'POST', '/api/v1/checkout/sessions', { price_id: product.body.price_id, customer_email: email });
        expect(await payOnHostedPage(session.body.url, origin, '4242 4242 4242 4242')).toBe(303);
      }
      const orders = (await callService(origin, key, 'GET', '/api/v1/orders')).body.data;
      const invoiceNumbers = await Promise.all(orders.map(async (order: { invoice_id: string }) => (await callService(origin, key, 'GET', `/api/v1/invoices/${order.invoice_id}`)).body.number));

      // Navigation: Balance, for an owner.
      await owner.goto(`${origin}/dashboard/test`);
      await owner.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Balance' }).click();
      await owner.waitForURL(`${origin}/dashboard/test/balance`);
      const figures = owner.locator('.dash-balance-figures');
      await expect(figures.innerText()).resolves.toMatch(/Available\s+€0\.00\s+Pending\s+€36\.62/);
      await expect(mainText(owner)).resolves.toMatch(/Payout schedule\s+Weekly, Mondays 00:00 UTC/);
      await expect(mainText(owner)).resolves.toMatch(/Payout hold\s+None/);
      await expect(mainText(owner)).resolves.toContain('No payouts yet.');
      expect(await tableRows(owner, 'Balance transactions').count()).toBe(6);

      // Nothing available yet: the refusal in the service's words.
      await owner.getByRole('button', { name: 'Pay out now' }).click();
      await owner.waitForURL(/error=balance_insufficient/);
      await expect(owner.getByRole('alert').innerText()).resolves.toBe('The available balance (0.00 EUR) is below the payout minimum (10.00 EUR).');

      // A week later the payments are available.
      await releaseHeldPayments(key);
      await owner.goto(`${origin}/dashboard/test/balance`);
      await expect(figures.innerText()).resolves.toMatch(/Available\s+€36\.62\s+Pending\s+€0\.00/);
      await expect(tableRows(owner, 'Balance transactions').first().innerText()).resolves.toMatch(/fee\s+Fee 5% \+ 0\.50 EUR on TEST-INV-/);
      await shoot(owner, 'balance');

      // Pay out now; the same form posted again makes no second payout.
      const fields = await postedFields(owner.locator('form.dash-payout-form'));
      await owner.getByRole('button', { name: 'Pay out now' }).click();
      await owner.waitForURL(/\/dashboard\/test\/payouts\/po_test_[0-9A-Za-z]+\?saved=created$/);
      const payoutId = new URL(owner.url()).pathname.split('/').at(-1)!;
      const again = await owner.request.post(`${origin}/dashboard/act/payout`, { form: fields, headers: { origin }, maxRedirects: 0 });
      expect(again.status()).toBe(303);
      expect(again.headers().location).toBe(`/dashboard/test/payouts/${payoutId}?saved=created`);
      const listed = (await callService(origin, key, 'GET', '/api/v1/payouts')).body.data;
      expect(listed.map((payout: { id: string }) => payout.id)).toEqual([payoutId]);
      expect(listed[0]).toMatchObject({ amount: 2 * NET, status: 'paid' });

      // The payout page: the payout, its entries, the statement.
      await expect(owner.locator('main h1').innerText()).resolves.toBe(payoutId);
      await expect(owner.getByRole('status').innerText()).resolves.toBe('Payout made: €36.62 to •••• 3000.');
      const facts = await owner.locator('.dash-facts').innerText();
      expect(facts).toMatch(/Amount\s+€36\.62/);
      expect(facts).toMatch(/Status\s+paid/);
      expect(facts).toMatch(/Failure reason\s+—/);
      expect(facts).toMatch(/Destination\s+•••• 3000 · Harbour Books/);
      expect(await tableRows(owner, 'Balance transactions settled').count()).toBe(6);
      await shoot(owner, 'payout');
      const statementHref = await owner.getByRole('link', { name: 'Download statement' }).getAttribute('href');
      expect(statementHref).toBe(`/dashboard/test/payouts/${payoutId}/statement.pdf`);
      const statement = await owner.request.get(`${origin}${statementHref}`);
      expect(statement.status()).toBe(200);
      expect(statement.headers()['content-type']).toBe('application/pdf');
      const [pdf] = await pdfPages(await statement.body());
      expect(pdf).toContain(`Payout statement Payout ${payoutId}`);
      for (const number of invoiceNumbers) expect(pdf).toContain(`${number} €23.80 -€3.80 -€1.69 €18.31`);
      expect(pdf).toContain('Total €47.60 -€7.60 -€3.38 €36.62');
      expect(pdf).toContain('Paid out €36.62');
      expect(pdf).toContain('This statement is not an invoice.');

      // Back on Balance: the payout listed, linking to its page; the ledger as CSV, with the list's filters.
      await owner.getByRole('link', { name: '← Balance' }).click();
      await owner.waitForURL(`${origin}/dashboard/test/balance`);
      await expect(figures.innerText()).resolves.toMatch(/Available\s+€0\.00/);
      await expect(tableRows(owner, 'Payouts').first().innerText()).resolves.toMatch(/€36\.62\s+paid/);
      expect(await tableRows(owner, 'Balance transactions').count()).toBe(7);
      const csvHref = await owner.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
      expect(csvHref).toBe('/dashboard/test/balance_transactions.csv');
      const csv = await owner.request.get(`${origin}${csvHref}`);
      expect(csv.status()).toBe(200);
      expect(csv.headers()['content-type']).toBe('text/csv; charset=utf-8');
      expect(csv.headers()['content-disposition']).toBe('attachment; filename="balance_transactions-test.csv"');
      const lines = (await csv.text()).split('\r\n');
      expect(lines[0]).toBe('id,created,available_on,type,amount,currency,source_type,source_id,description,status,payout_id');
      expect(lines).toHaveLength(9);
      expect(lines[1]!.split(',').slice(3, 8)).toEqual(['payout', String(-2 * NET), 'eur', 'payout', payoutId]);
      await owner.getByLabel('Type').selectOption('fee');
      await owner.getByRole('button', { name: 'Apply' }).click();
      await owner.waitForURL(/type=fee/);
      expect(await tableRows(owner, 'Balance transactions').count()).toBe(2);
      const feeHref = await owner.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
      expect(feeHref).toBe('/dashboard/test/balance_transactions.csv?type=fee');
      const fees = (await (await owner.request.get(`${origin}${feeHref}`)).text()).split('\r\n').filter(Boolean).slice(1);
      expect(fees.map((line) => line.split(',').slice(3, 5))).toEqual([
        ['fee', '-169'],
        ['fee', '-169'],
      ]);
      await owner.getByRole('link', { name: payoutId }).first().click();
      await owner.waitForURL(`${origin}/dashboard/test/payouts/${payoutId}`);

      // Live mode: its own (empty) ledger, the hold, and a payout that must be confirmed; the test payout is not there.
      await owner.goto(`${origin}/dashboard/balance`);
      await expect(mainText(owner)).resolves.toMatch(/Payout hold\s+No bank account is saved for this mode: add one in Settings\. \(destination_missing\)\s+Until its cause is removed/);
      expect(await owner.getByLabel('I confirm this live payout').count()).toBe(1);
      expect((await owner.request.get(`${origin}/dashboard/payouts/${payoutId}`)).status()).toBe(404);
      expect((await owner.request.get(`${origin}/dashboard/payouts/${payoutId}/statement.pdf`)).status()).toBe(404);
      await shoot(owner, 'balance-live');

      // A support person: no Balance link, and every page, file and post refused.
      const support = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: store.id, email: 'suki@example.com', role: 'support' });
      await support.goto(`${origin}/dashboard/test`);
      expect(await support.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Balance' }).count()).toBe(0);
      for (const path of [
        '/dashboard/test/balance',
        '/dashboard/balance',
        `/dashboard/test/payouts/${payoutId}`,
        `/dashboard/test/payouts/${payoutId}/statement.pdf`,
        '/dashboard/test/balance_transactions.csv',
      ]) {
        expect((await support.request.get(`${origin}${path}`)).status(), path).toBe(403);
      }
      const refused = await support.request.post(`${origin}/dashboard/act/payout`, { form: fields, headers: { origin }, maxRedirects: 0 });
      expect(refused.status()).toBe(403);
      expect(await refused.text()).toContain('Your role may not do this in this store (suki@example.com).');

      // Another store's owner: this payout is unknown there.
      const elsewhere = await admin.store.create.mutate({ name: 'Other Shore' });
      const stranger = await invitedDashboardPage(browser, { origin, adminToken: ADMIN_TOKEN }, { storeId: elsewhere.id, email: 'ottilie@example.com', role: 'owner' });
      expect((await stranger.request.get(`${origin}/dashboard/test/payouts/${payoutId}`)).status()).toBe(404);
      expect((await stranger.request.get(`${origin}/dashboard/test/payouts/${payoutId}/statement.pdf`)).status()).toBe(404);
      await expect(stranger.request.get(`${origin}/dashboard/test/balance_transactions.csv`).then((response) => response.text())).resolves.toBe(`${lines[0]}\r\n`);
      for (const page of [owner, support, stranger]) await page.context().close();
    });
  });
}
