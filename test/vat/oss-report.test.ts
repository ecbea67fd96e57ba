import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { orders, type TaxEvidence } from '@/db/schema';
import { ADMIN_ENDPOINT } from '@/server/admin/constants';
import type { AdminRouter } from '@/server/admin/router';
import { ossReport } from '@/server/vat/oss-report';
import { insertOrder } from '../orders/fixtures';
import { expectFailure, expectJson, useAdminCli } from '../support/admin-cli';
import { epoch } from '../support/api';
import { CARD_OF, createBuyerCountryStore, createTaxedProduct, payBuyerSale } from '../support/buyer-country';
import { useTestApi } from '../support/server';

/**
 * The One-Stop-Shop report of a store taxing by the buyer's country, over two quarters of its
 * test clock: the third quarter's sales to Austria and France (a French ebook at 5.5 %), none of
 * the domestic, reverse-charge and outside-EU ones, a refund within the quarter; the fourth's
 * sales and a refund of a third-quarter sale, which corrects that quarter.
 */
const api = useTestApi();
const cli = useAdminCli(api);

const IN_Q3 = new Date('2026-08-03T10:00:00Z');
const IN_Q4 = new Date('2026-10-05T10:00:00Z');
const Q3 = { start: epoch(new Date('2026-07-01T00:00:00Z')), end: epoch(new Date('2026-10-01T00:00:00Z')) };
const Q4 = { start: Q3.end, end: epoch(new Date('2027-01-01T00:00:00Z')) };
const AUSTRIAN_COMPANY = { country: 'AT', name: 'Anna Gruber', company: 'Gruber Verlag GmbH', line1: 'Ringstraße 1', postalCode: '1010', city: 'Wien', vatId: 'ATU13585627' };

function adminClient() {
  return createTRPCClient<AdminRouter>({ links: [httpLink({ url: `${cli.url()}${ADMIN_ENDPOINT}`, headers: { authorization: `Bearer ${cli.token}` } })] });
}

const scenario = {} as {
  storeId: string;
  otherStoreId: string;
  /** The French sale, paid with a German card, and the American one, paid with a French card. */
  conflicts: { frenchOrder: string; frenchPaidAt: number; americanOrder: string; americanPaidAt: number; subscriptionOrder: string; subscriptionPaidAt: number; liveOrder: string };
};

const refund = async (key: string, orderId: string, amount: number) => expect((await api.request('POST', '/api/v1/refunds', { key, body: { order_id: orderId, amount } })).status).toBe(201);

beforeAll(async () => {
  api.clock.set(IN_Q3);
  const store = await createBuyerCountryStore(api, 'Moth Books');
  const { key } = store;
  const standard = await createTaxedProduct(api, key, { name: 'App licence' });
  const ebook = await createTaxedProduct(api, key, { name: 'Moth atlas' }, 'ebook');
  const small = await createTaxedProduct(api, key, { name: 'Plugin', amount: 1000 });
  const next = () => api.clock.advance(60);

  // Austria: 1999 + 20 % = 2399.
  const austrian = await payBuyerSale(api, key, { lineItems: [{ price_id: standard }], billing: { country: 'AT' }, card: CARD_OF.AT });
  next();
  // France: the ebook at 5.5 % (1999 + 110) and the plugin at 20 % (1000 + 200); a German card.
  const french = await payBuyerSale(api, key, { lineItems: [{ price_id: ebook }, { price_id: small }], billing: { country: 'FR' }, card: CARD_OF.DE });
  next();
  // Domestic for the operator (DE): 1999 + 19 % = 2379.
  const german = await payBuyerSale(api, key, { lineItems: [{ price_id: standard }], billing: { country: 'DE' }, card: CARD_OF.DE });
  next();
  await payBuyerSale(api, key, { lineItems: [{ price_id: standard }], billing: AUSTRIAN_COMPANY, card: CARD_OF.AT });
  next();
  const american = await payBuyerSale(api, key, { lineItems: [{ price_id: standard }], billing: { country: 'US' }, card: CARD_OF.FR });
  next();
  // 1000 of the Austrian 2399 back within the quarter: 167 of it VAT (1000 × 400 / 2399).
  await refund(key, austrian.id, 1000);
  next();
  // A subscription's first charge and a renewal whose evidence disagrees: the subscription is listed once. A live one is the live report's.
  const subscriptionId = 'sub_test_oss000000000000000000000';
  const evidence: TaxEvidence = [
    { type: 'billing_country', country: 'IT' },
    { type: 'card_country', country: 'FR' },
  ];
  const conflicting = { evidenceConflict: true, taxCountry: 'IT', taxEvidence: evidence };
  const first = await insertOrder(api, store);
  await api.services.db
    .update(orders)
    .set({ ...conflicting, billingReason: 'subscription_create', subscriptionId })
    .where(eq(orders.id, first.id));
  next();
  const renewal = await insertOrder(api, store);
  await api.services.db
    .update(orders)
    .set({ ...conflicting, billingReason: 'subscription_cycle', subscriptionId })
    .where(eq(orders.id, renewal.id));
  const live = await insertOrder(api, store, { livemode: true });
  await api.services.db.update(orders).set(conflicting).where(eq(orders.id, live.id));

  // Another store's Austrian sale.
  const other = await createBuyerCountryStore(api);
  await payBuyerSale(api, other.key, { lineItems: [{ price_id: await createTaxedProduct(api, other.key, { name: 'Font' }) }], billing: { country: 'AT' } });

  // The fourth quarter, on the store's test clock.
  const advanced = await api.request('POST', '/api/v1/test_helpers/advance_clock', { key, body: { seconds: epoch(IN_Q4) - epoch(api.clock.now()) } });
  expect(advanced.body).toEqual({ object: 'test_clock', now: epoch(IN_Q4) });
  // 1000 of the French 3309 back: 637 of the 5.5 % rate (604 + 33), 363 of the 20 % rate (302 + 61).
  await refund(key, french.id, 1000);
  await refund(key, german.id, 500);
  await payBuyerSale(api, key, { lineItems: [{ price_id: standard }], billing: { country: 'AT' }, card: CARD_OF.AT });
  // Italy: 1999 + 22 % = 2439, refunded whole in the same quarter: nothing to report.
  const italian = await payBuyerSale(api, key, { lineItems: [{ price_id: standard }], billing: { country: 'IT' }, card: CARD_OF.IT });
  await refund(key, italian.id, 2439);

  Object.assign(scenario, {
    storeId: store.id,
    otherStoreId: other.id,
    conflicts: {
      frenchOrder: french.id,
      frenchPaidAt: french.paid_at,
      americanOrder: american.id,
      americanPaidAt: american.paid_at,
      subscriptionOrder: first.id,
      subscriptionPaidAt: epoch(IN_Q3) + 6 * 60,
      liveOrder: live.id,
    },
  });
}, 120_000);

const reportOf = (quarter: string, options: { livemode?: boolean; store?: string } = {}) => adminClient().tax.ossReport.query({ quarter, ...options });

describe('tax.ossReport', () => {
  it('a quarter’s supplies per country and rate, net of its own refunds; the sales whose evidence disagrees, oldest first', async () => {
    const { storeId, conflicts } = scenario;
    expect([conflicts.frenchPaidAt, conflicts.americanPaidAt]).toEqual([epoch(IN_Q3) + 60, epoch(IN_Q3) + 4 * 60]);
    expect(await reportOf('2026-Q3', { livemode: false, store: storeId })).toEqual({
      object: 'oss_report',
      quarter: '2026-Q3',
      livemode: false,
      store: storeId,
      operator_country: 'DE',
      currency: 'eur',
      period: Q3,
      supplies: [
        { country: 'AT', rate_type: 'standard', rate: 20, amount_net: 1166, amount_tax: 233 },
        { country: 'FR', rate_type: 'reduced', rate: 5.5, amount_net: 1999, amount_tax: 110 },
        { country: 'FR', rate_type: 'standard', rate: 20, amount_net: 1000, amount_tax: 200 },
      ],
      corrections: [],
      amount_tax_due: 543,
      evidence_conflicts: [
        {
          order_id: conflicts.frenchOrder,
          subscription_id: null,
          tax_country: 'FR',
          tax_evidence: [
            { type: 'billing_country', country: 'FR' },
            { type: 'card_country', country: 'DE' },
          ],
          paid_at: conflicts.frenchPaidAt,
        },
        {
          order_id: conflicts.americanOrder,
          subscription_id: null,
          tax_country: 'US',
          tax_evidence: [
            { type: 'billing_country', country: 'US' },
            { type: 'card_country', country: 'FR' },
          ],
          paid_at: conflicts.americanPaidAt,
        },
        {
          order_id: conflicts.subscriptionOrder,
          subscription_id: 'sub_test_oss000000000000000000000',
          tax_country: 'IT',
          tax_evidence: [
            { type: 'billing_country', country: 'IT' },
            { type: 'card_country', country: 'FR' },
          ],
          paid_at: conflicts.subscriptionPaidAt,
        },
      ],
    });
  });

  it('the next quarter: its own supplies (a sale refunded whole left out), and the refund of an earlier sale as a correction of that quarter', async () => {
    const { storeId } = scenario;
    expect(await reportOf('2026-Q4', { livemode: false, store: storeId })).toEqual({
      object: 'oss_report',
      quarter: '2026-Q4',
      livemode: false,
      store: storeId,
      operator_country: 'DE',
      currency: 'eur',
      period: Q4,
      supplies: [{ country: 'AT', rate_type: 'standard', rate: 20, amount_net: 1999, amount_tax: 400 }],
      corrections: [{ country: 'FR', quarter: '2026-Q3', amount_net: -906, amount_tax: -94 }],
      amount_tax_due: 306,
      evidence_conflicts: [],
    });
  });

  it('every store by default; live by default; a quarter without sales is empty', async () => {
    const everyStore = await reportOf('2026-Q3', { livemode: false });
    expect(everyStore).toMatchObject({ store: null, amount_tax_due: 943 });
    expect(everyStore.supplies).toEqual([
      { country: 'AT', rate_type: 'standard', rate: 20, amount_net: 3165, amount_tax: 633 },
      { country: 'FR', rate_type: 'reduced', rate: 5.5, amount_net: 1999, amount_tax: 110 },
      { country: 'FR', rate_type: 'standard', rate: 20, amount_net: 1000, amount_tax: 200 },
    ]);
    const live = await reportOf('2026-Q3', { store: scenario.storeId });
    expect(live).toMatchObject({ livemode: true, supplies: [], corrections: [], amount_tax_due: 0 });
    expect(live.evidence_conflicts.map((conflict) => conflict.order_id)).toEqual([scenario.conflicts.liveOrder]);
    expect(await reportOf('2026-Q1', { livemode: false })).toMatchObject({
      period: { start: epoch(new Date('2026-01-01T00:00:00Z')), end: epoch(new Date('2026-04-01T00:00:00Z')) },
      supplies: [],
      corrections: [],
      amount_tax_due: 0,
      evidence_conflicts: [],
    });
  });

  it('an operator whose VAT ID is of no member state reports every member state, its own sales to Germany too', async () => {
    const config = { ...api.services.config, operator: { ...api.services.config.operator, vatId: 'EU372000041' } };
    const report = await ossReport(api.services.db, { config }, { quarter: '2026-Q4', livemode: false, storeId: scenario.storeId });
    expect(report).toMatchObject({
      operator_country: null,
      supplies: [{ country: 'AT', rate_type: 'standard', rate: 20, amount_net: 1999, amount_tax: 400 }],
      // 500 of the German 2379: 80 of it VAT (500 × 380 / 2379).
      corrections: [
        { country: 'DE', quarter: '2026-Q3', amount_net: -420, amount_tax: -80 },
        { country: 'FR', quarter: '2026-Q3', amount_net: -906, amount_tax: -94 },
      ],
      amount_tax_due: 226,
    });
  });

  it('a quarter of another form and an unknown store are refused', async () => {
    const refused = await reportOf('2026-Q5').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<AdminRouter>).data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    const missing = await reportOf('2026-Q3', { store: 'acct_missing' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((missing as TRPCClientError<AdminRouter>).data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
    expect((missing as Error).message).toBe("No store with id 'acct_missing'.");
  });
});

describe('npm run admin -- tax:oss-report', { timeout: 150_000 }, () => {
  it('prints the report as JSON, or as CSV with --format csv: supplies and corrections in euros', async () => {
    const { storeId } = scenario;
    const json = expectJson(await cli.runCli(['tax:oss-report', '--quarter', '2026-Q4', '--livemode', 'false', '--store', storeId]));
    expect(json).toEqual(await reportOf('2026-Q4', { livemode: false, store: storeId }));
    const csv = await cli.runCli(['tax:oss-report', '--quarter', '2026-Q4', '--livemode', 'false', '--store', storeId, '--format', 'csv']);
    expect(csv).toEqual({
      code: 0,
      stderr: '',
      stdout: ['type,country,quarter,rate_type,rate,amount_net_eur,amount_tax_eur', 'supply,AT,2026-Q4,standard,20,19.99,4.00', 'correction,FR,2026-Q3,,,-9.06,-0.94', ''].join('\r\n'),
    });
    const third = await cli.runCli(['tax:oss-report', '--quarter=2026-Q3', '--livemode=false', `--store=${storeId}`, '--format=csv']);
    expect(third.stdout).toBe(
      [
        'type,country,quarter,rate_type,rate,amount_net_eur,amount_tax_eur',
        'supply,AT,2026-Q3,standard,20,11.66,2.33',
        'supply,FR,2026-Q3,reduced,5.5,19.99,1.10',
        'supply,FR,2026-Q3,standard,20,10.00,2.00',
        '',
      ].join('\r\n'),
    );
  });

  it('a --quarter of another form, or another --format, exits non-zero with parameter_invalid', async () => {
    for (const quarter of ['2026-Q5', '26-Q3', '2026-q3']) {
      expectFailure(
        await cli.runCli(['tax:oss-report', '--quarter', quarter]),
        2,
        new RegExp(`parameter_invalid: --quarter takes a quarter as YYYY-Qn, n from 1 to 4, such as 2026-Q3, not "${quarter}"`),
      );
    }
    expectFailure(await cli.runCli(['tax:oss-report', '--quarter', '2026-Q3', '--format', 'xml']), 2, /parameter_invalid: --format takes json or csv, not "xml"/);
  });
});
