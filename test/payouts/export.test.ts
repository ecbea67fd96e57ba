import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { type Element as DomElement, Window } from 'happy-dom';
import { afterAll, describe, expect, it } from 'vitest';
import { auditEvents, payoutExports } from '@/db/schema';
import { loadConfig } from '@/server/config';
import { epoch, T0 } from '../support/api';
import { expectFailure, expectJson, useAdminCli } from '../support/admin-cli';
import { createStore } from '../support/factories';
import { seedPendingPayout } from '../support/payouts';
import { useTestApi } from '../support/server';

/** `payouts:export` as a process: live payouts leave in one SEPA file (pain.001.001.09) for the operator's bank. */
const operator = loadConfig({
  OPERATOR_LEGAL_NAME: 'Zahlungsdienste Müller & Söhne GmbH',
  OPERATOR_ADDRESS: 'Hauptstraße 1, 10115 Berlin, Germany',
  OPERATOR_VAT_ID: 'DE123456789',
  OPERATOR_EMAIL: 'billing@payments.example',
  OPERATOR_IBAN: 'de89 3704 0044 0532 0130 00',
  OPERATOR_BIC: 'COBADEFFXXX',
}).operator;
const api = useTestApi({ operator });
const { runCli } = useAdminCli(api);
const withoutIban = useAdminCli(api, (config) => ({ ...config, operator: { ...config.operator, iban: undefined } }));
const withoutBic = useAdminCli(api, (config) => ({ ...config, operator: { ...config.operator, bic: undefined } }));

const NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';
/** The SEPA rulebook's lengths of the texts the file carries. */
const MAX_LENGTHS: Record<string, number> = { MsgId: 35, PmtInfId: 35, EndToEndId: 35, Nm: 70, Ustrd: 140 };

type XmlNode = [name: string, content: string | XmlNode[], attributes?: Record<string, string>];

/**
 * The file as a tree of elements in document order, each checked on the way: in the pain.001.001.09
 * namespace, every text in the EPC basic Latin set and within its element's length.
 */
function parsePain001(text: string): XmlNode {
  expect(text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  const document = new new Window().DOMParser().parseFromString(text, 'application/xml');
  const read = (element: DomElement): XmlNode => {
    expect(element.namespaceURI).toBe(NAMESPACE);
    const attributes = Object.fromEntries(
      Array.from(element.attributes)
        .filter((attribute) => attribute.name !== 'xmlns')
        .map((attribute) => [attribute.name, attribute.value ?? '']),
    );
    const children = Array.from(element.children);
    if (children.length > 0) return [element.localName, children.map(read)];
    const content = element.textContent ?? '';
    expect(content).toMatch(/^[A-Za-z0-9/\-?:().,'+ ]+$/);
    expect(content.length).toBeLessThanOrEqual(MAX_LENGTHS[element.localName] ?? 35);
    return Object.keys(attributes).length > 0 ? [element.localName, content, attributes] : [element.localName, content];
  };
  return read(document.documentElement);
}

const auditOf = (storeId: string, action: string) =>
  api.services.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.storeId, storeId), eq(auditEvents.action, action)));

const exportCount = async () => (await api.services.db.select().from(payoutExports)).length;

const hoursBefore = (hours: number) => new Date(T0.getTime() - hours * 3_600_000);

/** A directory of the test's own for the files, removed at the end. */
const outDirs: string[] = [];
const outDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'payouts-export-'));
  outDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of outDirs) rmSync(dir, { recursive: true, force: true });
});

/** Every other test's files here are for other dates; each test leaves no live payout pending. */
describe('npm run admin -- payouts:export', { timeout: 150_000 }, () => {
  it('writes every pending live payout of every store into one pain.001.001.09 file; they turn in_transit, arriving the next weekday; the same file again by its message id', async () => {
    api.clock.set(T0);
    const dir = outDir();
    const mueller = await createStore(api.services, { name: 'Müller_Söhne 🚀 Straße' });
    const baecker = await createStore(api.services, { name: `Bäckerei Süß & Co – ${'Feinkost '.repeat(20)}` });
    const holder = 'Jürgen Groß 🎉';
    const first = await seedPendingPayout(api.services, { storeId: mueller.id, livemode: true, amount: 1000, createdAt: hoursBefore(3), iban: 'DE02120300000000202051', accountHolder: holder });
    const second = await seedPendingPayout(api.services, { storeId: mueller.id, livemode: true, amount: 123456, createdAt: hoursBefore(2), iban: 'DE02120300000000202051', accountHolder: holder });
    const third = await seedPendingPayout(api.services, {
      storeId: baecker.id,
      livemode: true,
      amount: 2500,
      createdAt: hoursBefore(1),
      iban: 'FR1420041010050500013M02606',
      accountHolder: `Bäcker ${'Ä'.repeat(63)}`,
    });
    const testPayout = await seedPendingPayout(api.services, { storeId: mueller.id, livemode: false, amount: 4000, createdAt: hoursBefore(4) });

    // 2026-03-06 is a Friday: the money arrives on Monday.
    const out = path.join(dir, 'march.xml');
    const exported = expectJson(await runCli(['payouts:export', '--date', '2026-03-06', '--out', out]));
    expect(exported).toEqual({
      file: out,
      message_id: 'PAYOUTS-20260306-1',
      execution_date: '2026-03-06',
      count: 3,
      amount: 1000 + 123456 + 2500,
      payouts: [first.id, second.id, third.id],
    });

    const reference = (id: string) => id.replaceAll('_', '-');
    const transaction = (id: string, amount: string, name: string, iban: string, remittance: string): XmlNode => [
      'CdtTrfTxInf',
      [
        ['PmtId', [['EndToEndId', reference(id)]]],
        ['Amt', [['InstdAmt', amount, { Ccy: 'EUR' }]]],
        ['Cdtr', [['Nm', name]]],
        ['CdtrAcct', [['Id', [['IBAN', iban]]]]],
        ['RmtInf', [['Ustrd', remittance]]],
      ],
    ];
    const operatorName = 'Zahlungsdienste Mueller + Soehne GmbH';
    const baeckerRemittance = `${reference(third.id)} Baeckerei Suess + Co - ${'Feinkost '.repeat(20)}`.slice(0, 140).trimEnd();
    expect(baeckerRemittance).toHaveLength(140);
    expect(parsePain001(readFileSync(out, 'utf8'))).toEqual([
      'Document',
      [
        [
          'CstmrCdtTrfInitn',
          [
            [
              'GrpHdr',
              [
                ['MsgId', 'PAYOUTS-20260306-1'],
                ['CreDtTm', '2026-03-01T12:00:00Z'],
                ['NbOfTxs', '3'],
                ['CtrlSum', '1269.56'],
                ['InitgPty', [['Nm', operatorName]]],
              ],
            ],
            [
              'PmtInf',
              [
                ['PmtInfId', 'PAYOUTS-20260306-1'],
                ['PmtMtd', 'TRF'],
                ['NbOfTxs', '3'],
                ['CtrlSum', '1269.56'],
                ['PmtTpInf', [['SvcLvl', [['Cd', 'SEPA']]]]],
                ['ReqdExctnDt', [['Dt', '2026-03-06']]],
                ['Dbtr', [['Nm', operatorName]]],
                ['DbtrAcct', [['Id', [['IBAN', 'DE89370400440532013000']]]]],
                ['DbtrAgt', [['FinInstnId', [['BICFI', 'COBADEFFXXX']]]]],
                ['ChrgBr', 'SLEV'],
                transaction(first.id, '10.00', 'Juergen Gross', 'DE02120300000000202051', `${reference(first.id)} Mueller-Soehne Strasse`),
                transaction(second.id, '1234.56', 'Juergen Gross', 'DE02120300000000202051', `${reference(second.id)} Mueller-Soehne Strasse`),
                transaction(third.id, '25.00', `Baecker ${'Ae'.repeat(31)}`, 'FR1420041010050500013M02606', baeckerRemittance),
              ],
            ],
          ],
        ],
      ],
    ]);

    const arrival = epoch(new Date('2026-03-09T00:00:00Z'));
    for (const [store, payout] of [
      [mueller, first],
      [mueller, second],
      [baecker, third],
    ] as const) {
      const shown = (await api.request('GET', `/api/v1/payouts/${payout.id}`, { key: store.keys.sk_live })).body;
      expect(shown).toMatchObject({ id: payout.id, status: 'in_transit', arrival_date: arrival, failure_reason: null, livemode: true });
      const [updated] = (await api.request('GET', `/api/v1/events?object_id=${payout.id}`, { key: store.keys.sk_live })).body.data;
      expect(updated).toMatchObject({ type: 'payout.updated', livemode: true, data: { object: shown, previous_attributes: { status: 'pending', arrival_date: null } } });
    }
    expect((await api.request('GET', `/api/v1/payouts/${testPayout.id}`, { key: mueller.keys.sk_test })).body).toMatchObject({ status: 'pending', arrival_date: null });
    expect((await auditOf(mueller.id, 'admin.payout.export')).map((entry) => entry.details)).toEqual([
      { livemode: true, message_id: 'PAYOUTS-20260306-1', execution_date: '2026-03-06', payouts: [first.id, second.id] },
    ]);
    expect((await auditOf(baecker.id, 'admin.payout.export')).map((entry) => entry.details)).toEqual([
      { livemode: true, message_id: 'PAYOUTS-20260306-1', execution_date: '2026-03-06', payouts: [third.id] },
    ]);

    // Asked for again, the same bytes, whatever happened to the payouts since.
    expect(expectJson(await runCli(['payouts:mark-paid', '--id', first.id]))).toMatchObject({ id: first.id, status: 'paid', arrival_date: arrival });
    const again = path.join(dir, 'again.xml');
    expect(expectJson(await runCli(['payouts:export', '--message-id', 'PAYOUTS-20260306-1', '--out', again]))).toEqual({ ...exported, file: again });
    expect(readFileSync(again).equals(readFileSync(out))).toBe(true);

    // Nothing pending: no file, nothing recorded.
    const exports = await exportCount();
    const none = path.join(dir, 'none.xml');
    expect(expectJson(await runCli(['payouts:export', '--date', '2026-03-06', '--out', none]))).toEqual({
      file: null,
      message_id: null,
      execution_date: '2026-03-06',
      count: 0,
      amount: 0,
      payouts: [],
    });
    expect(existsSync(none)).toBe(false);
    expect(await exportCount()).toBe(exports);

    // The second file for the date, written where the operator stands by default.
    const later = await seedPendingPayout(api.services, { storeId: baecker.id, livemode: true, amount: 999, createdAt: T0 });
    const secondFile = expectJson(await runCli(['payouts:export', '--date', '2026-03-06'], undefined, dir));
    expect(secondFile).toEqual({
      file: path.join(dir, 'PAYOUTS-20260306-2.xml'),
      message_id: 'PAYOUTS-20260306-2',
      execution_date: '2026-03-06',
      count: 1,
      amount: 999,
      payouts: [later.id],
    });
    expect(readFileSync(secondFile.file, 'utf8')).toContain('<InstdAmt Ccy="EUR">9.99</InstdAmt>');

    expect(expectJson(await runCli(['ledger:verify', '--store', mueller.id]))).toMatchObject({ ok: true, checked: { payouts: 3 } });
    expectJson(await runCli(['payouts:cancel', '--id', testPayout.id]));
  });

  it('today is the earliest date: a Sunday arrives on Monday, a Monday on Tuesday', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services);
    const sunday = await seedPendingPayout(api.services, { storeId: store.id, livemode: true, amount: 1500, createdAt: T0 });
    expect(expectJson(await runCli(['payouts:export', '--date', '2026-03-01', '--out', path.join(outDir(), 'today.xml')]))).toMatchObject({
      message_id: 'PAYOUTS-20260301-1',
      payouts: [sunday.id],
    });
    expect((await api.request('GET', `/api/v1/payouts/${sunday.id}`, { key: store.keys.sk_live })).body.arrival_date).toBe(epoch(new Date('2026-03-02T00:00:00Z')));
    const monday = await seedPendingPayout(api.services, { storeId: store.id, livemode: true, amount: 1500, createdAt: T0 });
    expectJson(await runCli(['payouts:export', '--date', '2026-03-02', '--out', path.join(outDir(), 'monday.xml')]));
    expect((await api.request('GET', `/api/v1/payouts/${monday.id}`, { key: store.keys.sk_live })).body.arrival_date).toBe(epoch(new Date('2026-03-03T00:00:00Z')));
  });

  it('without OPERATOR_IBAN or OPERATOR_BIC, for a past or impossible date, or an unknown message id: exit 1, and nothing changes', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services);
    const payout = await seedPendingPayout(api.services, { storeId: store.id, livemode: true, amount: 2000, createdAt: T0 });
    const exports = await exportCount();
    const out = path.join(outDir(), 'refused.xml');

    expectFailure(
      await withoutIban.runCli(['payouts:export', '--date', '2026-03-10', '--out', out]),
      1,
      /\(503\): Payouts cannot be exported without the operator's bank account: set OPERATOR_IBAN and restart/,
    );
    expectFailure(await withoutBic.runCli(['payouts:export', '--date', '2026-03-10', '--out', out]), 1, /\(503\): .* set OPERATOR_BIC and restart/);
    expectFailure(
      await runCli(['payouts:export', '--date', '2026-02-28', '--out', out]),
      1,
      /BAD_REQUEST \(400\): The execution date 2026-02-28 has passed: ask for today \(2026-03-01\) or a later day\./,
    );
    expectFailure(await runCli(['payouts:export', '--date', '2026-02-30', '--out', out]), 1, /BAD_REQUEST \(400\): date: must be a day of the calendar/);
    expectFailure(await runCli(['payouts:export', '--date', '10.03.2026', '--out', out]), 1, /BAD_REQUEST \(400\): date: must be a date as YYYY-MM-DD/);
    expectFailure(await runCli(['payouts:export', '--message-id', 'PAYOUTS-20260310-9', '--out', out]), 1, /NOT_FOUND \(404\): No payout export with message id 'PAYOUTS-20260310-9'\./);
    expectFailure(await runCli(['payouts:export', '--out', out]), 2, /either --date YYYY-MM-DD .* or --message-id ID/);
    expectFailure(await runCli(['payouts:export', '--date', '2026-03-10', '--message-id', 'PAYOUTS-20260306-1']), 2, /either --date/);

    expect(existsSync(out)).toBe(false);
    expect(await exportCount()).toBe(exports);
    expect((await api.request('GET', `/api/v1/payouts/${payout.id}`, { key: store.keys.sk_live })).body).toMatchObject({ status: 'pending', arrival_date: null });
    expect(await auditOf(store.id, 'admin.payout.export')).toEqual([]);
    expectJson(await runCli(['payouts:cancel', '--id', payout.id]));
  });

  it('two exports at once: each payout in exactly one file, the files numbered apart', async () => {
    api.clock.set(T0);
    const store = await createStore(api.services);
    const seeded = [];
    for (let i = 0; i < 4; i++) seeded.push(await seedPendingPayout(api.services, { storeId: store.id, livemode: true, amount: 1000 + i, createdAt: hoursBefore(4 - i) }));
    const dir = outDir();
    const results = await Promise.all(['a', 'b'].map((name) => runCli(['payouts:export', '--date', '2026-03-11', '--out', path.join(dir, `${name}.xml`)])));
    const answers = results.map(expectJson);
    const files = answers.filter((answer) => answer.count > 0);
    expect(files.flatMap((answer) => answer.payouts).sort()).toEqual(seeded.map((payout) => payout.id).sort());
    expect(new Set(files.map((answer) => answer.message_id)).size).toBe(files.length);
    for (const answer of files) expect(answer.message_id).toMatch(/^PAYOUTS-20260311-[12]$/);
    const rows = await api.services.db.select().from(payoutExports).where(eq(payoutExports.executionDate, '2026-03-11'));
    expect(rows.map((row) => row.messageId).sort()).toEqual(files.map((answer) => answer.message_id).sort());
  });
});
