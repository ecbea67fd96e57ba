import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { customers, subscriptions } from '@/db/schema';
import { customerListFilters } from '@/server/customers/schemas';
import { csvField, csvRecord, exportCustomersCsv, exportOrdersCsv, exportSubscriptionsCsv } from '@/server/dashboard/csv';
import { orderListFilters } from '@/server/orders/schemas';
import { subscriptionListFilters } from '@/server/subscriptions/schemas';
import { seedCustomer, seedOrder, seedSubscription } from '../portal/factories';
import { T0 } from '../support/api';
import { createStore } from '../support/factories';
import { useTestApi } from '../support/server';

const api = useTestApi();
beforeEach(() => api.clock.set(T0));
const seed = () => ({ db: api.services.db, now: api.clock.now() });
const deps = () => ({ db: api.services.db });
const test = (store: { id: string }) => ({ storeId: store.id, livemode: false });

/** An RFC 4180 reader, strict: every record ends with CRLF, and a quote only opens a field or doubles inside one. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let index = 0;
  while (index < text.length) {
    let field = '';
    if (text[index] === '"') {
      index += 1;
      for (;;) {
        const quote = text.indexOf('"', index);
        if (quote === -1) throw new Error('unterminated quoted field');
        field += text.slice(index, quote);
        index = quote + 1;
        if (text[index] !== '"') break;
        field += '"';
        index += 1;
      }
    } else {
      const end = text.slice(index).search(/[,\r]/);
      field = end === -1 ? text.slice(index) : text.slice(index, index + end);
      if (field.includes('"') || field.includes('\n')) throw new Error(`unquoted field ${JSON.stringify(field)}`);
      index += field.length;
    }
    record.push(field);
    if (text[index] === ',') {
      index += 1;
    } else if (text.startsWith('\r\n', index)) {
      records.push(record);
      record = [];
      index += 2;
    } else {
      throw new Error(`unexpected ${JSON.stringify(text.slice(index, index + 10))} at ${index}`);
    }
  }
  if (record.length > 0) throw new Error('the last record has no CRLF');
  return records;
}

async function readAll(chunks: AsyncIterable<string>): Promise<{ chunks: string[]; records: string[][] }> {
  const all: string[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return { chunks: all, records: parseCsv(all.join('')) };
}

/** The records after the header, as objects keyed by the header's columns. */
function rowsOf(records: string[][]): Record<string, string>[] {
  const [header, ...rows] = records;
  return rows.map((row) => Object.fromEntries(header!.map((column, index) => [column, row[index]!])));
}

describe('the CSV writer', () => {
  it('quotes a field holding a quote, comma, CR or LF, doubling quotes; leaves the rest bare', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('line\r\nbreak')).toBe('"line\r\nbreak"');
    expect(csvField('Zoë 日本 ✓ 🙂')).toBe('Zoë 日本 ✓ 🙂');
    expect(csvField('')).toBe('');
    expect(csvField(null)).toBe('');
    expect(csvRecord(['a', 'b,c', null, 0])).toBe('a,"b,c",,0\r\n');
  });

  it("prefixes `'` to a cell starting with = + - @ tab or CR, and only at the start", () => {
    expect(csvField('=SUM(A1:A2)')).toBe("'=SUM(A1:A2)");
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-1')).toBe("'-1");
    expect(csvField('@cmd')).toBe("'@cmd");
    expect(csvField('\tx')).toBe(`"'\tx"`);
    expect(csvField('\rx')).toBe(`"'\rx"`);
    expect(csvField('=HYPERLINK("http://x","a,b")')).toBe(`"'=HYPERLINK(""http://x"",""a,b"")"`);
    expect(csvField('a=b+c-d@e')).toBe('a=b+c-d@e');
    expect(csvField(' =1')).toBe(' =1');
    expect(csvField("'=1")).toBe("'=1");
  });

  it("quotes a cell holding ; or tab, and prefixes `'` to every part a spreadsheet splitting on , ; tab, CR or LF would start with a formula", () => {
    expect(csvField('x;=1+2@a.bc')).toBe(`"x;'=1+2@a.bc"`);
    expect(csvField('a,+1')).toBe(`"a,'+1"`);
    expect(csvField('a\t-1')).toBe(`"a\t'-1"`);
    expect(csvField('a\n@SUM(A1)')).toBe(`"a\n'@SUM(A1)"`);
    expect(csvField('a\r\n=1')).toBe(`"a\r\n'=1"`);
    expect(csvField('a;;=1')).toBe(`"a;;'=1"`);
    expect(csvField('=1;=2')).toBe(`"'=1;'=2"`);
    expect(csvField('a; b')).toBe('"a; b"');
    expect(csvField('a\tb')).toBe('"a\tb"');
    // Split on `;` as a spreadsheet of a `;` locale does, no part starts a formula.
    const record = csvRecord(['x;=1+2@a.bc', 'y,-3', 'z\t+4']);
    for (const part of record.split(/[,;\t\r\n]/)) expect(part.replace(/^"/, '')).not.toMatch(/^[=+\-@]/);
  });

  it('writes numbers as they are and times as ISO 8601 UTC to the second', () => {
    expect(csvField(0)).toBe('0');
    expect(csvField(1999)).toBe('1999');
    expect(csvField(new Date('2026-03-01T12:00:00.000Z'))).toBe('2026-03-01T12:00:00Z');
  });
});

describe('exportOrdersCsv', () => {
  it('the header, then every order of the store and environment newest first, each column', async () => {
    const store = await createStore(api.services);
    const other = await createStore(api.services);
    const ada = await seedCustomer(seed(), store, { email: 'ada@example.com' });
    const older = await seedOrder(seed(), store, { customer: ada, lines: [{ description: 'A', unitAmount: 5000, amountTax: 950 }], refunds: [1000], ageSeconds: 60 });
    const pending = await seedOrder(seed(), store, { status: 'pending' });
    await seedOrder(seed(), store, { livemode: true });
    await seedOrder(seed(), other);

    const { records } = await readAll(exportOrdersCsv(deps(), test(store), {}));
    expect(records).toEqual([
      ['id', 'created', 'status', 'customer_email', 'customer_id', 'amount_subtotal', 'amount_tax', 'amount_total', 'amount_refunded', 'currency', 'card_brand', 'card_last4'],
      [pending.id, '2026-03-01T12:00:00Z', 'pending', '', '', '1999', '0', '1999', '0', 'eur', '', ''],
      [older.id, '2026-03-01T11:59:00Z', 'partially_refunded', 'ada@example.com', ada.id, '5000', '950', '5950', '1000', 'eur', 'visa', '4242'],
    ]);
  });

  it('honours the list filters: status, customer, e-mail (case-insensitive) and the created range', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store, { email: 'ada@example.com' });
    const bob = await seedCustomer(seed(), store, { email: 'bob@example.com' });
    const adaOld = await seedOrder(seed(), store, { customer: ada, ageSeconds: 3600 });
    const adaNew = await seedOrder(seed(), store, { customer: ada });
    const bobRefunded = await seedOrder(seed(), store, { customer: bob, refunds: [1999], ageSeconds: 60 });
    const ids = async (filters: unknown) => rowsOf((await readAll(exportOrdersCsv(deps(), test(store), orderListFilters.parse(filters)))).records).map((row) => row.id);

    expect(await ids({})).toEqual([adaNew.id, bobRefunded.id, adaOld.id]);
    expect(await ids({ status: 'refunded' })).toEqual([bobRefunded.id]);
    expect(await ids({ customer_id: ada.id })).toEqual([adaNew.id, adaOld.id]);
    expect(await ids({ customer_email: 'ADA@example.com' })).toEqual([adaNew.id, adaOld.id]);
    const t0 = T0.getTime() / 1000;
    expect(await ids({ created_gte: t0 - 60, created_lte: t0 - 60 })).toEqual([bobRefunded.id]);
    expect(await ids({ created_lte: t0 - 61 })).toEqual([adaOld.id]);
    // The page fields are not filters of an export.
    expect(orderListFilters.safeParse({ limit: 10 }).success).toBe(false);
    expect(orderListFilters.safeParse({ starting_after: adaNew.id }).success).toBe(false);
  });

  it('250 orders read 100 at a time: every one once, newest first, one chunk per page after the header', async () => {
    const store = await createStore(api.services);
    const made: string[] = [];
    for (let n = 0; n < 250; n++) made.push((await seedOrder(seed(), store, { ageSeconds: n })).id);
    const { chunks, records } = await readAll(exportOrdersCsv(deps(), test(store), {}, { pageSize: 100 }));
    expect(chunks).toHaveLength(4);
    expect(records).toHaveLength(251);
    expect(rowsOf(records).map((row) => row.id)).toEqual(made);
  });

  it('streams: the header comes before any read, and each page is read only when asked for', async () => {
    const store = await createStore(api.services);
    for (let n = 0; n < 5; n++) await seedOrder(seed(), store, { ageSeconds: n });
    const iterator = exportOrdersCsv(deps(), test(store), {}, { pageSize: 2 })[Symbol.asyncIterator]();
    const header = await iterator.next();
    expect(header.value).toMatch(/^id,created,status,/);
    // Written after the first chunk: a reader that had read everything up front would miss them.
    const first = await seedOrder(seed(), store, { ageSeconds: -1 });
    expect(parseCsv((await iterator.next()).value as string).map((row) => row[0])).toContain(first.id);
    const last = await seedOrder(seed(), store, { ageSeconds: 100 });
    const rest: string[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    const ids = parseCsv(rest.join('')).map((row) => row[0]);
    expect(ids).toHaveLength(5);
    expect(ids.at(-1)).toBe(last.id);
  });
});

describe('exportCustomersCsv', () => {
  it('escapes every awkward name, round trip through an RFC 4180 reader; deleted customers are left out', async () => {
    const store = await createStore(api.services);
    const names = ['Doe, "Jane"\nSr.', '=HYPERLINK("http://evil")', '+33 1 23', '-5', '@SUM(A1)', '\tTabbed', '\rReturned', 'Zoë 日本 🙂', null];
    for (const [index, name] of names.entries()) await seedCustomer({ db: api.services.db, now: new Date(T0.getTime() - index * 1000) }, store, { email: `c${index}@example.com`, name });
    // An e-mail as typed at checkout, whose part after `;` is a formula.
    await seedCustomer({ db: api.services.db, now: new Date(T0.getTime() - names.length * 1000) }, store, { email: 'x;=1+2@a.bc', name: 'Semi' });
    const deleted = await seedCustomer(seed(), store, { email: 'gone@example.com' });
    await api.services.db.update(customers).set({ deletedAt: T0 }).where(eq(customers.id, deleted.id));
    await seedCustomer(seed(), store, { email: 'live@example.com', livemode: true });

    const { records } = await readAll(exportCustomersCsv(deps(), test(store), {}));
    expect(records[0]).toEqual(['id', 'created', 'email', 'name']);
    expect(rowsOf(records).map((row) => [row.email, row.name])).toEqual([
      ['c0@example.com', 'Doe, "Jane"\nSr.'],
      ['c1@example.com', `'=HYPERLINK("http://evil")`],
      ['c2@example.com', "'+33 1 23"],
      ['c3@example.com', "'-5"],
      ['c4@example.com', "'@SUM(A1)"],
      ['c5@example.com', "'\tTabbed"],
      ['c6@example.com', "'\rReturned"],
      ['c7@example.com', 'Zoë 日本 🙂'],
      ['c8@example.com', ''],
      ["x;'=1+2@a.bc", 'Semi'],
    ]);
    expect(rowsOf(records)[1]!.created).toBe('2026-03-01T11:59:59Z');
    const filtered = await readAll(exportCustomersCsv(deps(), test(store), customerListFilters.parse({ email: 'C3@example.com', created_lte: T0.getTime() / 1000 })));
    expect(rowsOf(filtered.records).map((row) => row.email)).toEqual(['c3@example.com']);
  });

  it('carries on past a customer deleted between two pages', async () => {
    const store = await createStore(api.services);
    const made = [];
    for (let n = 0; n < 4; n++) made.push(await seedCustomer({ db: api.services.db, now: new Date(T0.getTime() - n * 1000) }, store));
    const iterator = exportCustomersCsv(deps(), test(store), {}, { pageSize: 2 })[Symbol.asyncIterator]();
    await iterator.next();
    expect(parseCsv((await iterator.next()).value as string).map((row) => row[0])).toEqual([made[0]!.id, made[1]!.id]);
    await api.services.db.update(customers).set({ deletedAt: T0 }).where(eq(customers.id, made[1]!.id));
    expect(parseCsv((await iterator.next()).value as string).map((row) => row[0])).toEqual([made[2]!.id, made[3]!.id]);
  });
});

describe('exportSubscriptionsCsv', () => {
  it('each column, and the status and e-mail filters', async () => {
    const store = await createStore(api.services);
    const ada = await seedCustomer(seed(), store, { email: 'ada@example.com' });
    const monthly = await seedSubscription(seed(), store, { customer: ada, planName: '=cmd|Pro', amount: 990 });
    const yearly = await seedSubscription(seed(), store, { status: 'canceled', amount: 9900, interval: 'year', intervalCount: 2 });
    await api.services.db
      .update(subscriptions)
      .set({ canceledAt: T0, createdAt: new Date(T0.getTime() - 1000) })
      .where(eq(subscriptions.id, yearly.id));
    await seedSubscription(seed(), store, { livemode: true });

    const { records } = await readAll(exportSubscriptionsCsv(deps(), test(store), {}));
    const [row] = await api.services.db.select().from(subscriptions).where(eq(subscriptions.id, yearly.id));
    expect(records).toEqual([
      ['id', 'created', 'status', 'customer_email', 'plan_name', 'amount', 'currency', 'interval', 'interval_count', 'current_period_end', 'canceled_at'],
      [yearly.id, '2026-03-01T11:59:59Z', 'canceled', row!.customerEmail, 'Pro plan', '9900', 'eur', 'year', '2', '2026-03-31T12:00:00Z', '2026-03-01T12:00:00Z'],
      [monthly.id, '2026-01-30T12:00:00Z', 'active', 'ada@example.com', "'=cmd|Pro", '990', 'eur', 'month', '1', '2026-03-31T12:00:00Z', ''],
    ]);
    const ids = async (filters: unknown) => rowsOf((await readAll(exportSubscriptionsCsv(deps(), test(store), subscriptionListFilters.parse(filters)))).records).map((r) => r.id);
    expect(await ids({ status: 'canceled' })).toEqual([yearly.id]);
    expect(await ids({ customer_email: 'ADA@EXAMPLE.COM' })).toEqual([monthly.id]);
    expect(await ids({ status: 'past_due' })).toEqual([]);
  });
});
