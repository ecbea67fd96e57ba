/**
 * The One-Stop-Shop return data of a quarter: the VAT the operator owes other member states for
 * its sales to their consumers, from the invoices and credit notes issued in the quarter, per tax
 * country and rate; corrections of earlier quarters apart (a credit note corrects the quarter of
 * its invoice, in the return of the quarter it is issued in); and the sales whose two pieces of
 * evidence of the buyer's country disagree, for the operator to look at.
 *
 * Counted: documents taxed `vat` in a member state other than the operator's own (every member
 * state when the operator's VAT ID is of none). Domestic sales go in the national return;
 * reverse-charge and outside-EU sales carry no VAT of a member state.
 */
import { and, asc, eq, gte, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { type PgColumn, unionAll } from 'drizzle-orm/pg-core';
import type { Database, Executor } from '@/db/client';
import { creditNotes, invoices, orders, stores } from '@/db/schema';
import { epochSeconds } from '../clock';
import type { OperatorConfig } from '../config';
import { EU_MEMBER_STATES } from '../kit/countries';
import type { RateTable } from '../kit/vat-rates';
import { type OssCorrection, type OssEvidenceConflict, type OssReport, type OssSupply, quarterOf, quarterPeriod } from './oss-report-format';
import { operatorCountryOf } from './taxation';

export interface OssReportRequest {
  quarter: string;
  livemode: boolean;
  /** One store's sales; undefined for every store's. */
  storeId: string | undefined;
}

export interface OssReportDeps {
  config: { operator: Pick<OperatorConfig, 'vatId'>; taxRates: RateTable };
}

/** One rate of the documents of one tax country supplied on one day (UTC), credit notes negative. */
interface DailyRate {
  country: string;
  suppliedOn: string;
  rate: number;
  net: number;
  tax: number;
}

/**
 * The rates of the quarter's documents, summed per tax country, day of supply and rate in one
 * statement (each document's `tax_breakdown` expanded): the invoices issued in the quarter, and
 * the credit notes issued in it, negative, dated by their invoice's issue. The day is what the rate table needs
 * to tell a standard rate from a reduced one, and its quarter tells a supply from a correction.
 */
function dailyRates(db: Executor, period: { start: Date; end: Date }, request: OssReportRequest, countries: string[]): Promise<DailyRate[]> {
  const counted = (table: typeof invoices | typeof creditNotes): SQL | undefined =>
    and(
      eq(table.livemode, request.livemode),
      gte(table.createdAt, period.start),
      lt(table.createdAt, period.end),
      eq(table.taxTreatment, 'vat'),
      inArray(table.taxCountry, countries),
      request.storeId === undefined ? undefined : eq(table.storeId, request.storeId),
    );
  const credited = sql.identifier('credited');
  const documents = unionAll(
    db
      .select({
        country: sql<string>`${invoices.taxCountry}`.as('document_country'),
        suppliedAt: sql<Date>`${invoices.createdAt}`.as('document_supplied_at'),
        sign: sql<number>`1`.as('document_sign'),
        entry: sql<unknown>`json_array_elements(${invoices.taxBreakdown})`.as('document_entry'),
      })
      .from(invoices)
      .where(counted(invoices)),
    db
      .select({
        country: sql<string>`${creditNotes.taxCountry}`,
        // Each note's invoice by its key: a join would read every invoice to hash the few credited.
        suppliedAt: sql<Date>`(select ${credited}.${column(invoices.createdAt)} from ${invoices} as ${credited} where ${credited}.${column(invoices.id)} = ${creditNotes}.${column(creditNotes.invoiceId)})`,
        sign: sql<number>`-1`,
        entry: sql<unknown>`json_array_elements(${creditNotes.taxBreakdown})`,
      })
      .from(creditNotes)
      .where(counted(creditNotes)),
  ).as('documents');
  const suppliedOn = sql<string>`to_char(${documents.suppliedAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rate = sql`(${documents.entry}->>'rate')::numeric`;
  const sum = (key: 'amount_net' | 'amount_tax') => sql<number>`sum(${documents.sign} * (${documents.entry}->>${sql.raw(`'${key}'`)})::bigint)`.mapWith(Number);
  return db
    .select({ country: documents.country, suppliedOn, rate: rate.mapWith(Number), net: sum('amount_net'), tax: sum('amount_tax') })
    .from(documents)
    .groupBy(documents.country, suppliedOn, rate);
}

/** Paid orders and subscriptions' first charges of the quarter whose evidence disagrees, oldest first. */
async function evidenceConflicts(db: Executor, period: { start: Date; end: Date }, request: OssReportRequest): Promise<OssEvidenceConflict[]> {
  const rows = await db
    .select({ id: orders.id, subscriptionId: orders.subscriptionId, taxCountry: orders.taxCountry, taxEvidence: orders.taxEvidence, paidAt: orders.paidAt })
    // From the stores: the planner may then read each store's orders paid in the quarter by the index on them.
    .from(stores)
    .innerJoin(orders, eq(orders.storeId, stores.id))
    .where(
      and(
        request.storeId === undefined ? undefined : eq(stores.id, request.storeId),
        eq(orders.livemode, request.livemode),
        gte(orders.paidAt, period.start),
        lt(orders.paidAt, period.end),
        eq(orders.evidenceConflict, true),
        // A renewal repeats its subscription's evidence: the subscription is listed once, with its first charge.
        inArray(orders.billingReason, ['purchase', 'subscription_create']),
      ),
    )
    .orderBy(asc(orders.paidAt), asc(orders.id));
  return rows.map((row) => ({ order_id: row.id, subscription_id: row.subscriptionId, tax_country: row.taxCountry, tax_evidence: row.taxEvidence, paid_at: epochSeconds(row.paidAt!) }));
}

/** A column's name alone, for a statement that says which table it is of. */
const column = (of: PgColumn) => sql.identifier(of.name);

const byCountryThen =
  <T extends { country: string }>(next: (a: T, b: T) => number) =>
  (a: T, b: T) =>
    a.country.localeCompare(b.country, 'en') || next(a, b);

/**
 * The report of `request.quarter` (a `YYYY-Qn` its caller checked): read in one snapshot, so its
 * parts agree with each other however much is written meanwhile.
 */
export function ossReport(db: Database, deps: OssReportDeps, request: OssReportRequest): Promise<OssReport> {
  const period = quarterPeriod(request.quarter)!;
  const operatorCountry = operatorCountryOf(deps.config.operator.vatId);
  const countries = EU_MEMBER_STATES.filter((country) => country !== operatorCountry);
  return db.transaction(
    async (tx) => {
      const supplies = new Map<string, OssSupply>();
      const corrections = new Map<string, OssCorrection>();
      for (const row of await dailyRates(tx, period, request, countries)) {
        const suppliedOn = new Date(`${row.suppliedOn}T00:00:00Z`);
        if (suppliedOn.getTime() >= period.start.getTime()) {
          const standard = deps.config.taxRates.rateOn(row.country, 'standard', suppliedOn).hundredths === Math.round(row.rate * 100);
          const supply: OssSupply = { country: row.country, rate_type: standard ? 'standard' : 'reduced', rate: row.rate, amount_net: 0, amount_tax: 0 };
          const key = `${supply.country}/${supply.rate}/${supply.rate_type}`;
          const total = supplies.get(key) ?? supplies.set(key, supply).get(key)!;
          total.amount_net += row.net;
          total.amount_tax += row.tax;
        } else {
          const correction: OssCorrection = { country: row.country, quarter: quarterOf(suppliedOn), amount_net: 0, amount_tax: 0 };
          const key = `${correction.country}/${correction.quarter}`;
          const total = corrections.get(key) ?? corrections.set(key, correction).get(key)!;
          total.amount_net += row.net;
          total.amount_tax += row.tax;
        }
      }
      const supplyRows = [...supplies.values()]
        .filter((supply) => supply.amount_net !== 0 || supply.amount_tax !== 0)
        .sort(byCountryThen((a, b) => a.rate - b.rate || a.rate_type.localeCompare(b.rate_type)));
      const correctionRows = [...corrections.values()].sort(byCountryThen((a, b) => a.quarter.localeCompare(b.quarter)));
      const taxDue = [...supplyRows, ...correctionRows].reduce((sum, row) => sum + row.amount_tax, 0);
      return {
        object: 'oss_report' as const,
        quarter: request.quarter,
        livemode: request.livemode,
        store: request.storeId ?? null,
        operator_country: operatorCountry,
        currency: 'eur' as const,
        period: { start: epochSeconds(period.start), end: epochSeconds(period.end) },
        supplies: supplyRows,
        corrections: correctionRows,
        amount_tax_due: taxDue,
        evidence_conflicts: await evidenceConflicts(tx, period, request),
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
