/**
 * The VAT rates of the EU member states as dated data: the table shipped in rates.csv, or the
 * operator's own (`TAX_RATES_FILE`, .csv or .json with the same keys). Rates change every year
 * somewhere, so they are never constants in code; a file that cannot be read exactly stops the
 * start, naming the row at fault, rather than tax anyone at a guessed rate.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TAX_CATEGORIES, type TaxCategory } from '@/db/schema';
import { EU_MEMBER_STATES, isMemberState } from './countries';

/** The table shipped with the service. */
export const SHIPPED_RATES_FILE = path.join(/* turbopackIgnore: true */ process.cwd(), 'server', 'vat', 'rates.csv');

const HEADER = ['country', 'category', 'rate', 'valid_from'] as const;

export interface RateRow {
  country: string;
  category: TaxCategory;
  /** The rate in hundredths of a percent (550 = 5.5%): exact integer arithmetic. */
  hundredths: number;
  /** 00:00 UTC of the first day the row applies. */
  validFrom: Date;
}

/** A line's rate: its percent (`5.5`), the same in hundredths, and whether it is its country's standard rate that day. */
export interface AppliedRate {
  rate: number;
  hundredths: number;
  standard: boolean;
}

export class RateTableError extends Error {}

export interface RateTable {
  /** The rate of `category` in member state `country` on `date` (UTC). */
  rateOn(country: string, category: TaxCategory, date: Date): AppliedRate;
}

/** `5.5` → 550; anything but a number 0–100 with at most two decimals → undefined. */
function hundredthsOf(text: string): number | undefined {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return undefined;
  const hundredths = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return hundredths <= 10_000 ? hundredths : undefined;
}

function dayOf(text: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const date = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text ? undefined : date;
}

/** Percent from hundredths: 1900 → 19, 550 → 5.5. */
export function percentOf(hundredths: number): number {
  return hundredths / 100;
}

/** The rows as given, each checked; `rows[0]` is row 1. */
function checkRows(rows: Record<string, unknown>[]): RateRow[] {
  const seen = new Set<string>();
  const checked = rows.map((row, index) => {
    const fail = (problem: string): never => {
      throw new RateTableError(`TAX_RATES_FILE row ${index + 1}: ${problem}`);
    };
    const text = (key: string) => {
      const value = row[key];
      if (typeof value === 'number') return String(value);
      return typeof value === 'string' ? value.trim() : '';
    };
    const country = text('country');
    if (!isMemberState(country)) fail(`country "${country}" is not an EU member state's ISO code (Greece is GR)`);
    const category = text('category');
    if (!(TAX_CATEGORIES as readonly string[]).includes(category)) fail(`category "${category}" is not one of ${TAX_CATEGORIES.join(', ')}`);
    const hundredths = hundredthsOf(text('rate'));
    if (hundredths === undefined) fail(`rate "${text('rate')}" is not a number 0–100`);
    const validFrom = dayOf(text('valid_from'));
    if (validFrom === undefined) fail(`valid_from "${text('valid_from')}" is not a date YYYY-MM-DD`);
    const key = `${country}/${category}/${text('valid_from')}`;
    if (seen.has(key)) fail(`${country} ${category} from ${text('valid_from')} is given twice`);
    seen.add(key);
    return { country, category: category as TaxCategory, hundredths: hundredths!, validFrom: validFrom! };
  });
  for (const country of EU_MEMBER_STATES) {
    if (!checked.some((row) => row.country === country && row.category === 'standard')) {
      throw new RateTableError(`TAX_RATES_FILE: member state ${country} has no standard rate`);
    }
  }
  return checked;
}

function csvRows(content: string): Record<string, unknown>[] {
  // A byte-order mark (spreadsheets write one) is no part of the header.
  const lines = content
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const header = (lines[0] ?? '').split(',').map((cell) => cell.trim());
  if (header.join(',') !== HEADER.join(',')) throw new RateTableError(`TAX_RATES_FILE: the header must be ${HEADER.join(',')}, got "${lines[0] ?? ''}"`);
  return lines.slice(1).map((line, index) => {
    const cells = line.split(',');
    if (cells.length !== HEADER.length) throw new RateTableError(`TAX_RATES_FILE row ${index + 1}: ${cells.length} values where ${HEADER.join(',')} are 4`);
    return Object.fromEntries(cells.map((cell, position) => [HEADER[position]!, cell]));
  });
}

function jsonRows(content: string): Record<string, unknown>[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new RateTableError('TAX_RATES_FILE: not valid JSON');
  }
  if (!Array.isArray(parsed)) throw new RateTableError('TAX_RATES_FILE: a .json rates file must be an array of objects with country, category, rate and valid_from');
  return parsed.map((row) => (typeof row === 'object' && row !== null ? (row as Record<string, unknown>) : {}));
}

/** A table from rows already checked: per country and category, the rows newest first. */
function tableOf(rows: RateRow[]): RateTable {
  const byKey = new Map<string, RateRow[]>();
  for (const row of rows) {
    const key = `${row.country}/${row.category}`;
    byKey.set(key, [...(byKey.get(key) ?? []), row]);
  }
  for (const list of byKey.values()) list.sort((a, b) => b.validFrom.getTime() - a.validFrom.getTime());
  // The row in force on `date`; before a country's first row, that first row.
  const inForce = (list: RateRow[] | undefined, date: Date) => list?.find((row) => row.validFrom.getTime() <= date.getTime());
  return {
    rateOn(country, category, date) {
      const standardRows = byKey.get(`${country}/standard`);
      if (!standardRows) throw new RateTableError(`No VAT rate for ${country}: it is not an EU member state`);
      const standard = inForce(standardRows, date) ?? standardRows[standardRows.length - 1]!;
      const own = category === 'standard' ? undefined : inForce(byKey.get(`${country}/${category}`), date);
      const hundredths = (own ?? standard).hundredths;
      return { rate: percentOf(hundredths), hundredths, standard: hundredths === standard.hundredths };
    },
  };
}

/** Parses and checks a rates file's content; `name` decides its form (.csv or .json). */
export function parseRateTable(name: string, content: string): RateTable {
  const extension = path.extname(name).toLowerCase();
  if (extension !== '.csv' && extension !== '.json') throw new RateTableError(`TAX_RATES_FILE must be a .csv or .json file, got "${name}"`);
  return tableOf(checkRows(extension === '.csv' ? csvRows(content) : jsonRows(content)));
}

const loaded = new Map<string, RateTable>();

/** The operator's table (`TAX_RATES_FILE`) or the shipped one, read once per process. */
export function loadRateTable(file: string | undefined): RateTable {
  const name = file || SHIPPED_RATES_FILE;
  let table = loaded.get(name);
  if (!table) {
    let content: string;
    try {
      // turbopackIgnore: the operator's file is read at run time, not a file for the build to trace.
      content = readFileSync(/* turbopackIgnore: true */ name, 'utf8');
    } catch (error) {
      throw new RateTableError(`TAX_RATES_FILE "${name}" cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    table = parseRateTable(name, content);
    loaded.set(name, table);
  }
  return table;
}
