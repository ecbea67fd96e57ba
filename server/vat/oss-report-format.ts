/**
 * The One-Stop-Shop report's shape, its quarters and its CSV form: pure, so the operator's CLI
 * prints a report with them without loading the service.
 */
import type { TaxEvidence } from '@/db/schema';

/** `2026-Q3`: a calendar quarter, UTC. */
export const QUARTER_PATTERN = /^(\d{4})-Q([1-4])$/;

/** A quarter's first instant and the next quarter's (UTC); undefined for text of another form. */
export function quarterPeriod(quarter: string): { start: Date; end: Date } | undefined {
  const match = QUARTER_PATTERN.exec(quarter);
  if (!match) return undefined;
  const year = Number(match[1]);
  const firstMonth = (Number(match[2]) - 1) * 3;
  return { start: new Date(Date.UTC(year, firstMonth, 1)), end: new Date(Date.UTC(year, firstMonth + 3, 1)) };
}

/** The quarter `date` falls in (UTC). */
export function quarterOf(date: Date): string {
  return `${date.getUTCFullYear()}-Q${Math.floor(date.getUTCMonth() / 3) + 1}`;
}

export type RateType = 'standard' | 'reduced';

/** Net and VAT in cents of one tax country and rate, supplied in the report's quarter. */
export interface OssSupply {
  country: string;
  rate_type: RateType;
  rate: number;
  amount_net: number;
  amount_tax: number;
}

/** What credit notes of the report's quarter take back from one tax country's earlier quarter: negative cents. */
export interface OssCorrection {
  country: string;
  quarter: string;
  amount_net: number;
  amount_tax: number;
}

export interface OssEvidenceConflict {
  order_id: string;
  subscription_id: string | null;
  tax_country: string | null;
  tax_evidence: TaxEvidence | null;
  paid_at: number;
}

export interface OssReport {
  object: 'oss_report';
  quarter: string;
  livemode: boolean;
  store: string | null;
  operator_country: string | null;
  currency: 'eur';
  period: { start: number; end: number };
  supplies: OssSupply[];
  corrections: OssCorrection[];
  amount_tax_due: number;
  evidence_conflicts: OssEvidenceConflict[];
}

/** Cents as euros with two decimals, exactly: -83 → `-0.83`. */
function euros(cents: number): string {
  const whole = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(whole / 100)}.${String(whole % 100).padStart(2, '0')}`;
}

/** A field quoted only where it must be (a comma, quote or line break in it). */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

const CSV_HEADER = ['type', 'country', 'quarter', 'rate_type', 'rate', 'amount_net_eur', 'amount_tax_eur'];

/** The report as RFC 4180 CSV (CRLF after every record): its supplies, then its corrections; conflicts are no return data. */
export function ossReportCsv(report: OssReport): string {
  const records = [
    CSV_HEADER,
    ...report.supplies.map((supply) => ['supply', supply.country, report.quarter, supply.rate_type, String(supply.rate), euros(supply.amount_net), euros(supply.amount_tax)]),
    ...report.corrections.map((correction) => ['correction', correction.country, correction.quarter, '', '', euros(correction.amount_net), euros(correction.amount_tax)]),
  ];
  return records.map((record) => `${record.map(csvField).join(',')}\r\n`).join('');
}
