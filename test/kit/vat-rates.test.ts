import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EU_MEMBER_STATES } from '@/server/kit/countries';
import { loadRateTable, parseRateTable, RateTableError, SHIPPED_RATES_FILE } from '@/server/kit/vat-rates';

const HEADER = 'country,category,rate,valid_from';
/** A standard row for every member state but those given: the rest of a table that parses. */
const standardRows = (except: string[] = []) => EU_MEMBER_STATES.filter((country) => !except.includes(country)).map((country) => `${country},standard,20,2020-01-01`);
const csv = (...rows: string[]) => [HEADER, ...rows].join('\n');
const json = (rows: unknown[]) => JSON.stringify(rows);
const jsonStandardRows = (except: string[] = []) =>
  EU_MEMBER_STATES.filter((country) => !except.includes(country)).map((country) => ({ country, category: 'standard', rate: 20, valid_from: '2020-01-01' }));

/** The message a table is refused with (a RateTableError), or undefined when it parses. */
function refusal(name: string, content: string): string | undefined {
  try {
    parseRateTable(name, content);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(RateTableError);
    return (error as Error).message;
  }
}

const day = (text: string) => new Date(text);
const IN_2026 = day('2026-07-01T12:00:00Z');

describe('parseRateTable: malformed tables are refused, naming the row (the first data row is 1) or the member state', () => {
  it('a name that is neither .csv nor .json', () => {
    expect(refusal('rates.txt', csv(...standardRows()))).toBe('TAX_RATES_FILE must be a .csv or .json file, got "rates.txt"');
    expect(refusal('rates', csv(...standardRows()))).toBe('TAX_RATES_FILE must be a .csv or .json file, got "rates"');
  });

  it('.CSV and .JSON in capitals are read as their forms', () => {
    expect(refusal('RATES.CSV', csv(...standardRows()))).toBeUndefined();
    expect(refusal('RATES.JSON', json(jsonStandardRows()))).toBeUndefined();
  });

  it('a CSV header other than country,category,rate,valid_from', () => {
    expect(refusal('rates.csv', ['country,category,valid_from,rate', ...standardRows()].join('\n'))).toBe(
      'TAX_RATES_FILE: the header must be country,category,rate,valid_from, got "country,category,valid_from,rate"',
    );
    expect(refusal('rates.csv', standardRows().join('\n'))).toBe('TAX_RATES_FILE: the header must be country,category,rate,valid_from, got "AT,standard,20,2020-01-01"');
    expect(refusal('rates.csv', '')).toBe('TAX_RATES_FILE: the header must be country,category,rate,valid_from, got ""');
  });

  it.each([
    ['a non-member state', 'CH,standard,8.1,2024-01-01', 'country "CH" is not an EU member state\'s ISO code (Greece is GR)'],
    ['Greece by its VAT prefix', 'EL,standard,24,2016-06-01', 'country "EL" is not an EU member state\'s ISO code (Greece is GR)'],
    ['a code in lower case', 'de,standard,19,2021-01-01', 'country "de" is not an EU member state\'s ISO code (Greece is GR)'],
    ['no country', ',standard,19,2021-01-01', 'country "" is not an EU member state\'s ISO code (Greece is GR)'],
    ['an unknown category', 'DE,reduced,7,2021-01-01', 'category "reduced" is not one of standard, ebook, enewspaper'],
    ['a category in capitals', 'DE,Ebook,7,2021-01-01', 'category "Ebook" is not one of standard, ebook, enewspaper'],
    ['a letter O for a zero', 'DE,standard,2O,2021-01-01', 'rate "2O" is not a number 0–100'],
    ['a rate above 100', 'DE,standard,100.01,2021-01-01', 'rate "100.01" is not a number 0–100'],
    ['a negative rate', 'DE,standard,-1,2021-01-01', 'rate "-1" is not a number 0–100'],
    ['three decimals', 'DE,standard,19.125,2021-01-01', 'rate "19.125" is not a number 0–100'],
    ['a decimal comma (a cell too many)', 'FR,ebook,5,5,2014-01-01', '5 values where country,category,rate,valid_from are 4'],
    ['a percent sign', 'DE,standard,19%,2021-01-01', 'rate "19%" is not a number 0–100'],
    ['no rate', 'DE,standard,,2021-01-01', 'rate "" is not a number 0–100'],
    ['a day that does not exist', 'DE,standard,19,2021-02-29', 'valid_from "2021-02-29" is not a date YYYY-MM-DD'],
    ['another date form', 'DE,standard,19,01.01.2021', 'valid_from "01.01.2021" is not a date YYYY-MM-DD'],
    ['a date and time', 'DE,standard,19,2021-01-01T00:00:00Z', 'valid_from "2021-01-01T00:00:00Z" is not a date YYYY-MM-DD'],
    ['no date', 'DE,standard,19', '3 values where country,category,rate,valid_from are 4'],
  ])('a CSV row with %s', (_label, row, problem) => {
    // Rows 1 and 2 are fine, blank lines are no rows: the bad row is row 3.
    expect(refusal('rates.csv', csv('AT,standard,20,2016-01-01', '', 'BE,standard,21,1996-01-01', row, ...standardRows(['AT', 'BE'])))).toBe(`TAX_RATES_FILE row 3: ${problem}`);
  });

  it('a row of more or fewer values than the header names; a byte-order mark before the header is no part of it', () => {
    expect(refusal('rates.csv', csv(...standardRows(), 'DE,ebook,7,2021-01-01,extra'))).toBe('TAX_RATES_FILE row 28: 5 values where country,category,rate,valid_from are 4');
    expect(refusal('rates.csv', csv('DE,ebook,7', ...standardRows()))).toBe('TAX_RATES_FILE row 1: 3 values where country,category,rate,valid_from are 4');
    expect(refusal('rates.csv', `\uFEFF${csv(...standardRows())}`)).toBeUndefined();
  });

  it('the documented example: row 12 with a letter O in its rate', () => {
    const rows = standardRows();
    rows[11] = rows[11]!.replace(',20,', ',2O,');
    expect(refusal('rates.csv', csv(...rows))).toBe('TAX_RATES_FILE row 12: rate "2O" is not a number 0–100');
  });

  it('a country, category and valid_from given twice, with the same or another rate', () => {
    expect(refusal('rates.csv', csv(...standardRows(), 'DE,ebook,7,2021-01-01', 'DE,ebook,5,2021-01-01'))).toBe('TAX_RATES_FILE row 29: DE ebook from 2021-01-01 is given twice');
    expect(refusal('rates.csv', csv(...standardRows(), 'AT,standard,20,2020-01-01'))).toBe('TAX_RATES_FILE row 28: AT standard from 2020-01-01 is given twice');
  });

  it('the same country and category from two dates is a dated change, not a repeat', () => {
    expect(refusal('rates.csv', csv(...standardRows(), 'AT,standard,22,2027-01-01'))).toBeUndefined();
  });

  it('a member state without a standard rate, even with other rows of its own', () => {
    expect(refusal('rates.csv', csv(...standardRows(['MT'])))).toBe('TAX_RATES_FILE: member state MT has no standard rate');
    expect(refusal('rates.csv', csv(...standardRows(['LU']), 'LU,ebook,3,2015-01-01'))).toBe('TAX_RATES_FILE: member state LU has no standard rate');
    expect(refusal('rates.csv', csv())).toBe('TAX_RATES_FILE: member state AT has no standard rate');
  });

  it('JSON: an array of objects with the same keys, checked alike (numbers or strings), rows counted from 1', () => {
    expect(refusal('rates.json', json([...jsonStandardRows(), { country: 'FR', category: 'ebook', rate: 5.5, valid_from: '2014-01-01' }]))).toBeUndefined();
    expect(refusal('rates.json', json([...jsonStandardRows(), { country: 'FR', category: 'ebook', rate: '5.5', valid_from: '2014-01-01' }]))).toBeUndefined();
    const rows: unknown[] = jsonStandardRows();
    rows[4] = { country: 'CZ', category: 'standard', rate: '2O', valid_from: '2020-01-01' };
    expect(refusal('rates.json', json(rows))).toBe('TAX_RATES_FILE row 5: rate "2O" is not a number 0–100');
    expect(refusal('rates.json', json([...jsonStandardRows(), { country: 'FR', category: 'ebook', rate: 5.555, valid_from: '2014-01-01' }]))).toBe(
      'TAX_RATES_FILE row 28: rate "5.555" is not a number 0–100',
    );
    expect(refusal('rates.json', json([...jsonStandardRows(), { country: 'XK', category: 'standard', rate: 18, valid_from: '2015-01-01' }]))).toBe(
      'TAX_RATES_FILE row 28: country "XK" is not an EU member state\'s ISO code (Greece is GR)',
    );
    expect(refusal('rates.json', json([...jsonStandardRows(), { country: 'FR', category: 'audiobook', rate: 5.5, valid_from: '2014-01-01' }]))).toBe(
      'TAX_RATES_FILE row 28: category "audiobook" is not one of standard, ebook, enewspaper',
    );
    expect(refusal('rates.json', json([...jsonStandardRows(), { country: 'FR', category: 'ebook', rate: 5.5, valid_from: 20140101 }]))).toBe(
      'TAX_RATES_FILE row 28: valid_from "20140101" is not a date YYYY-MM-DD',
    );
    expect(refusal('rates.json', json([...jsonStandardRows(), { country: 'AT', category: 'standard', rate: 19, valid_from: '2020-01-01' }]))).toBe(
      'TAX_RATES_FILE row 28: AT standard from 2020-01-01 is given twice',
    );
    expect(refusal('rates.json', json([...jsonStandardRows(), 'FR,ebook,5.5,2014-01-01']))).toBe('TAX_RATES_FILE row 28: country "" is not an EU member state\'s ISO code (Greece is GR)');
    expect(refusal('rates.json', json(jsonStandardRows(['SI'])))).toBe('TAX_RATES_FILE: member state SI has no standard rate');
  });

  it('JSON that does not parse, or is not an array', () => {
    expect(refusal('rates.json', csv(...standardRows()))).toBe('TAX_RATES_FILE: not valid JSON');
    expect(refusal('rates.json', JSON.stringify({ rates: jsonStandardRows() }))).toBe('TAX_RATES_FILE: a .json rates file must be an array of objects with country, category, rate and valid_from');
  });
});

describe('rateOn', () => {
  const shipped = loadRateTable(undefined);

  it('the shipped table has a standard rate for each of the 27 member states, Greece as GR', () => {
    for (const country of EU_MEMBER_STATES) expect(shipped.rateOn(country, 'standard', IN_2026).standard).toBe(true);
    expect(shipped.rateOn('GR', 'standard', IN_2026).rate).toBe(24);
    expect(() => shipped.rateOn('EL', 'standard', IN_2026)).toThrow(RateTableError);
    expect(() => shipped.rateOn('US', 'standard', IN_2026)).toThrow('No VAT rate for US: it is not an EU member state');
  });

  it('the standard rates shipped for 2026', () => {
    const listed = { AT: 20, BE: 21, CZ: 21, DE: 19, DK: 25, ES: 21, FR: 20, IE: 23, IT: 22, NL: 21, PL: 23, PT: 23, SE: 25 };
    const read = Object.fromEntries(Object.keys(listed).map((country) => [country, shipped.rateOn(country, 'standard', IN_2026).rate]));
    expect(read).toEqual(listed);
    expect(shipped.rateOn('DE', 'standard', IN_2026)).toEqual({ rate: 19, hundredths: 1900, standard: true });
  });

  it('the ebook rates shipped for 2026: DE 7, FR 5.5 (in hundredths 550), not the standard rate', () => {
    expect(shipped.rateOn('DE', 'ebook', IN_2026)).toEqual({ rate: 7, hundredths: 700, standard: false });
    expect(shipped.rateOn('FR', 'ebook', IN_2026)).toEqual({ rate: 5.5, hundredths: 550, standard: false });
  });

  it('a dated change: FI 24 until 31 August 2024, 25.5 from 1 September 2024 at 00:00 UTC', () => {
    expect(shipped.rateOn('FI', 'standard', day('2024-08-31T23:59:59.999Z'))).toEqual({ rate: 24, hundredths: 2400, standard: true });
    expect(shipped.rateOn('FI', 'standard', day('2024-09-01T00:00:00Z'))).toEqual({ rate: 25.5, hundredths: 2550, standard: true });
    // 01:00 in Helsinki on 1 September is still 31 August in UTC.
    expect(shipped.rateOn('FI', 'standard', day('2024-09-01T01:00:00+03:00')).rate).toBe(24);
    expect(shipped.rateOn('FI', 'standard', IN_2026).rate).toBe(25.5);
  });

  it('the latest valid_from on or before the date, whatever the rows’ order in the file', () => {
    const table = parseRateTable(
      'rates.csv',
      csv(...standardRows(['DE']), 'DE,standard,19,2021-01-01', 'DE,standard,16,2020-07-01', 'DE,standard,19,2007-01-01', 'DE,ebook,7,2021-01-01', 'DE,ebook,5,2020-07-01'),
    );
    expect(table.rateOn('DE', 'standard', day('2020-06-30T23:59:59Z')).rate).toBe(19);
    expect(table.rateOn('DE', 'standard', day('2020-07-01T00:00:00Z')).rate).toBe(16);
    expect(table.rateOn('DE', 'standard', day('2020-12-31T12:00:00Z')).rate).toBe(16);
    expect(table.rateOn('DE', 'standard', day('2021-01-01T00:00:00Z')).rate).toBe(19);
    expect(table.rateOn('DE', 'ebook', day('2020-09-01T00:00:00Z'))).toEqual({ rate: 5, hundredths: 500, standard: false });
    expect(table.rateOn('DE', 'ebook', day('2021-06-01T00:00:00Z'))).toEqual({ rate: 7, hundredths: 700, standard: false });
    // Before its first ebook row, an ebook is taxed at the standard rate of that day.
    expect(table.rateOn('DE', 'ebook', day('2019-06-01T00:00:00Z'))).toEqual({ rate: 19, hundredths: 1900, standard: true });
  });

  it('a category without a row of its own takes the country’s standard rate', () => {
    // Denmark has no reduced rate for either; Czechia's e-newspaper rate of its own applies from 2024.
    expect(shipped.rateOn('DK', 'ebook', IN_2026)).toEqual({ rate: 25, hundredths: 2500, standard: true });
    expect(shipped.rateOn('DK', 'enewspaper', IN_2026)).toEqual({ rate: 25, hundredths: 2500, standard: true });
    expect(shipped.rateOn('CZ', 'enewspaper', day('2023-12-31T23:59:59Z'))).toEqual({ rate: 21, hundredths: 2100, standard: true });
    expect(shipped.rateOn('CZ', 'enewspaper', day('2024-01-01T00:00:00Z'))).toEqual({ rate: 12, hundredths: 1200, standard: false });
  });

  it('a category row at the standard rate counts as the standard rate', () => {
    const table = parseRateTable('rates.csv', csv(...standardRows(), 'NL,ebook,20,2020-01-01'));
    expect(table.rateOn('NL', 'ebook', IN_2026)).toEqual({ rate: 20, hundredths: 2000, standard: true });
  });
});

describe('loadRateTable: TAX_RATES_FILE replaces the shipped table', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'vat-rates-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('unset, the shipped server/vat/rates.csv (header country,category,rate,valid_from)', () => {
    expect(path.relative(process.cwd(), SHIPPED_RATES_FILE)).toBe(path.join('server', 'vat', 'rates.csv'));
    expect(loadRateTable(undefined)).toBe(loadRateTable(SHIPPED_RATES_FILE));
  });

  it('a .json file with DE standard 16 gives 16 for Germany, and its own rates elsewhere', async () => {
    const file = path.join(dir, 'operator-rates.json');
    await writeFile(file, json([...jsonStandardRows(['DE']), { country: 'DE', category: 'standard', rate: 16, valid_from: '2020-07-01' }]));
    const table = loadRateTable(file);
    expect(table.rateOn('DE', 'standard', IN_2026)).toEqual({ rate: 16, hundredths: 1600, standard: true });
    expect(table.rateOn('DE', 'ebook', IN_2026)).toEqual({ rate: 16, hundredths: 1600, standard: true });
    expect(table.rateOn('FR', 'standard', IN_2026).rate).toBe(20);
  });

  it('a file that cannot be read, or a malformed one, is refused naming it', async () => {
    const missing = path.join(dir, 'missing.csv');
    expect(() => loadRateTable(missing)).toThrow(`TAX_RATES_FILE "${missing}" cannot be read: ENOENT`);
    const bad = path.join(dir, 'bad.csv');
    await writeFile(bad, csv('DE,standard,2O,2021-01-01'));
    expect(() => loadRateTable(bad)).toThrow('TAX_RATES_FILE row 1: rate "2O" is not a number 0–100');
  });
});
