/**
 * `npm run bench`: the dashboard's Orders pages on a store with 100,000 orders. The service is
 * started the way `npm start` starts it on a fresh PostgreSQL database; its demo store gets
 * 100,000 test-mode orders (one line each) written in bulk; the demo owner sets a password
 * through the printed link in Chromium, and the signed-in cookie then drives autocannon at one
 * connection (the time to render one page on the server) and at 4. Prints req/s, p50 and p99
 * for the first page, an e-mail search, a status filter, a date range, a deep page and an order's
 * detail page.
 *
 * BENCH_DASHBOARD_ORDERS (default 100000) sets the number of orders.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { randomBase62 } from '@/server/ids';
import { launchChromium } from '../support/browser';
import { freePort, serviceEnv, startService, stopService } from '../support/production-server';

const ORDERS = Number(process.env.BENCH_DASHBOARD_ORDERS ?? 100_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const PASSWORD = 'bench owner password';

const log = (message: string) => console.error(`[bench] ${message}`);

/** Orders over the last ~70 days, one a minute: 1 in 10 refunded, 1 in 20 pending, buyers cycling over 5,000 addresses. */
async function seedOrders(sql: postgres.Sql, storeId: string): Promise<string> {
  await sql`
    insert into orders (id, store_id, livemode, status, customer_email, amount_subtotal, amount_tax, amount_total, amount_refunded, card_brand, card_last4, created_at, paid_at)
    select 'ord_test_' || lpad(g::text, 24, '0'), ${storeId}, false,
           case when g % 20 = 0 then 'pending' when g % 10 = 0 then 'refunded' else 'paid' end,
           'buyer' || (g % 5000) || '@example.com', 2000, 380, 2380,
           case when g % 20 <> 0 and g % 10 = 0 then 2380 else 0 end,
           case when g % 20 = 0 then null else 'visa' end, case when g % 20 = 0 then null else '4242' end,
           now() - make_interval(mins => g), case when g % 20 = 0 then null else now() - make_interval(mins => g) + interval '1 minute' end
    from generate_series(1, ${ORDERS}) g`;
  await sql`
    insert into order_lines (id, order_id, position, description, quantity, unit_amount, amount_subtotal, amount_tax, amount_total, tax_rate, tax_inclusive, has_license)
    select 'oli_test_' || lpad(g::text, 24, '0'), 'ord_test_' || lpad(g::text, 24, '0'), 0, 'Bench product', 1, 2000, 2000, 380, 2380, 19, false, false
    from generate_series(1, ${ORDERS}) g`;
  await sql`analyze orders`;
  await sql`analyze order_lines`;
  return `ord_test_${String(Math.floor(ORDERS / 2)).padStart(24, '0')}`;
}

/** The owner's session cookie: the printed link, a password set in Chromium. */
async function ownerCookie(origin: string, output: string): Promise<string> {
  const link = /(http:\/\/\S+\/dashboard\/accept\/[A-Za-z0-9_-]{43})/.exec(output)?.[1];
  if (!link) throw new Error(`no owner link in the start-up output:\n${output}`);
  const chromium = await launchChromium();
  try {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await page.goto(link.replace(/^http:\/\/[^/]+/, origin));
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(`${origin}/dashboard`);
    return (await context.cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
  } finally {
    await chromium.close();
  }
}

async function loadPage(url: string, cookie: string, connections: number) {
  const result = await autocannon({ url, connections, duration: DURATION, timeout: 30, headers: { cookie } });
  return { rps: result['2xx'] / result.duration, p50: result.latency.p50, p99: result.latency.p99, errors: result.non2xx + result.errors + result.timeouts, requests: result.requests.total };
}

export async function printDashboardOrdersLoad(serverUrl: string): Promise<boolean> {
  const name = `bench_dashboard_${randomBase62(10).toLowerCase()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-dashboard-'));
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const service = await startService(serviceEnv({ DATABASE_URL: url.toString(), DATA_DIR: dataDir, PORT: String(port), AUTH_SECRET: 'bench-dashboard-auth-secret' }));
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  let failed = false;
  try {
    const [store] = await sql<{ id: string }[]>`select id from stores order by created_at limit 1`;
    const seeding = Date.now();
    const orderId = await seedOrders(sql, store!.id);
    log(`${ORDERS} orders written in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
    const cookie = await ownerCookie(origin, service.output());
    const pages: [string, string][] = [
      ['first page', '/dashboard/test/orders'],
      ['e-mail search', '/dashboard/test/orders?q=buyer42%40example.com'],
      ['status refunded', '/dashboard/test/orders?status=refunded'],
      ['date range', `/dashboard/test/orders?from=${new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10)}&to=${new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10)}`],
      ['page after 50,000', `/dashboard/test/orders?starting_after=${orderId}`],
      ['order detail', `/dashboard/test/orders/${orderId}`],
    ];
    const rows = ['| page | conns | req/s | p50 ms | p99 ms | errors |', '|---|---:|---:|---:|---:|---:|'];
    for (const [label, route] of pages) {
      const check = await fetch(`${origin}${route}`, { headers: { cookie }, redirect: 'manual' });
      const html = await check.text();
      if (check.status !== 200 || (!html.includes('dash-table') && !html.includes(orderId))) throw new Error(`${route} answered ${check.status}`);
      for (const connections of [1, 4]) {
        await loadPage(`${origin}${route}`, cookie, connections);
        const cell = await loadPage(`${origin}${route}`, cookie, connections);
        failed ||= cell.errors > 0;
        log(`dashboard ${label} c=${connections}: ${cell.rps.toFixed(0)} req/s, p50 ${cell.p50} ms, p99 ${cell.p99} ms`);
        rows.push(`| ${label} | ${connections} | ${cell.rps.toFixed(0)} | ${cell.p50} | ${cell.p99} | ${cell.errors}/${cell.requests} |`);
      }
    }
    console.log(
      `\nDashboard Orders pages on PostgreSQL with ${ORDERS.toLocaleString('en')} test-mode orders in the store (server render, signed in as the owner; at 1 connection p50/p99 are the time to render one page):\n`,
    );
    console.log(rows.join('\n'));
  } finally {
    await sql.end({ timeout: 5 });
    await stopService(service).catch(() => {});
    await admin.unsafe(`drop database if exists "${name}" with (force)`).catch((error: unknown) => log(`could not drop ${name}: ${String(error)}`));
    await admin.end({ timeout: 5 });
    await rm(dataDir, { recursive: true, force: true });
  }
  return !failed;
}
