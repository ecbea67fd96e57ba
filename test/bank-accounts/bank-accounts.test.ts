import { readFile } from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, payouts, stores } from '@/db/schema';
import { payoutHold } from '@/server/balance/service';
import { savedBankAccount } from '@/server/bank-accounts/service';
import { ApiError } from '@/server/errors';
import { runScheduledPayouts } from '@/server/payouts/jobs';
import { changeStoreLanguage } from '@/server/stores/service';
import { changePayoutSchedule } from '@/server/balance/service';
import { advanceClock } from '../billing/support';
import { epoch, expectError, T0 } from '../support/api';
import { listOf } from '../support/lists';
import { useTestApi } from '../support/server';
import { actingOwner, auditOf, createPayout, DAY, emailRows, fund, holdOf, saveAs, scopeOf, storeWithTeam, TEST_IBAN, testEmails } from './support';

/**
 * The store's bank account through the dashboard's service and the API: where payouts go (test
 * mode's default, a saved account, fixed on each payout at creation), the holds that follow a
 * save, the owners' e-mails and the audit trail, in two stores and both modes.
 */
const api = useTestApi();

const ibanOf = async (payoutId: string) => (await api.services.db.select({ iban: payouts.iban }).from(payouts).where(eq(payouts.id, payoutId)))[0]!.iban;
const getPayout = (key: string, id: string) => api.request('GET', `/api/v1/payouts/${id}`, { key });
const NO_RELATED = { order_id: null, subscription_id: null, invoice_id: null, credit_note_id: null, payout_id: null };
/** `2026-03-08T12:00:00.000Z` for a time in epoch seconds. */
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ApiError);
  const { code, param, status, message } = error as ApiError;
  return { code, param, status, message };
}

describe('where payouts go', () => {
  it('test mode pays to DE89… in the store’s name until a save; a save holds payouts 7 days (exact until, POST 409 naming reason and date); each payout keeps the destination it was made with', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Quay Prints' });
    await fund(api, store, false, 5000);
    expect(await holdOf(api, store.key)).toBeNull();
    const first = await createPayout(api, store.key);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ amount: 5000, status: 'paid', destination: { iban_last4: '3000', account_holder: 'Quay Prints' }, created: epoch(T0) });
    expect(await ibanOf(first.body.id)).toBe(TEST_IBAN);

    // An owner saves a British account, typed in groups and lower case: kept normalised.
    expect(await saveAs(api, store, false, { iban: 'gb82 west 1234 5698 7654 32', accountHolder: '  Quay Prints Ltd  ' })).toEqual({
      iban: 'GB82WEST12345698765432',
      accountHolder: 'Quay Prints Ltd',
    });
    expect(await savedBankAccount(api.services.db, scopeOf(store, false))).toEqual({
      storeId: store.id,
      livemode: false,
      iban: 'GB82WEST12345698765432',
      accountHolder: 'Quay Prints Ltd',
      changedAt: T0,
      savedAt: T0,
    });
    const until = epoch(T0) + 7 * DAY;
    expect(await holdOf(api, store.key)).toEqual({ reason: 'destination_changed', until });
    await fund(api, store, false, 2500);
    const held = await createPayout(api, store.key);
    expectError(held, 409, 'payouts_held');
    expect(held.body.error.message).toBe(`Payouts are held (destination_changed) until ${iso(until)}.`);
    expect(iso(until)).toBe('2026-03-08T12:00:00.000Z');
    expect((await getPayout(store.key, first.body.id)).body).toEqual(first.body);

    // The last second of the wait is held; at its end the payout goes to the saved account.
    await advanceClock(api, store.key, 7 * DAY - 1);
    expect(await holdOf(api, store.key)).toEqual({ reason: 'destination_changed', until });
    expectError(await createPayout(api, store.key), 409, 'payouts_held');
    await advanceClock(api, store.key, 1);
    expect(await holdOf(api, store.key)).toBeNull();
    const second = await createPayout(api, store.key);
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ amount: 2500, destination: { iban_last4: '5432', account_holder: 'Quay Prints Ltd' }, created: until });
    expect(await ibanOf(second.body.id)).toBe('GB82WEST12345698765432');

    // A later save moves neither payout: each keeps the destination it was made with.
    await saveAs(api, store, false, { iban: 'NL91ABNA0417164300', accountHolder: 'Quay Prints BV' });
    expect(await holdOf(api, store.key)).toEqual({ reason: 'destination_changed', until: until + 7 * DAY });
    expect((await getPayout(store.key, first.body.id)).body).toEqual(first.body);
    expect((await getPayout(store.key, second.body.id)).body).toEqual(second.body);
    expect([await ibanOf(first.body.id), await ibanOf(second.body.id)]).toEqual([TEST_IBAN, 'GB82WEST12345698765432']);
  });

  it('every save is audited (last four only) and e-mailed to each owner in the store’s language; an unchanged save keeps the wait, a new holder starts it again', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Hafen Druck', language: 'de' });
    const other = await storeWithTeam(api, { name: 'Harbour Print' });
    await saveAs(api, store, false, { iban: 'DE89 3704 0044 0532 0130 00', accountHolder: 'Hafen Druck GmbH' });
    const mails = await testEmails(api, store.key, 'bank_account_changed');
    expect(mails.map((mail: { to: string }) => mail.to).sort()).toEqual([...store.owners].sort());
    for (const mail of mails) {
      expect(mail).toMatchObject({
        object: 'email',
        template: 'bank_account_changed',
        language: 'de',
        subject: 'Das Bankkonto von Hafen Druck wurde geändert',
        attachments: [],
        related: NO_RELATED,
        created: epoch(T0),
      });
      expect(mail.text).toContain('Auszahlungen gehen jetzt auf das Konto •••• 3000 von Hafen Druck GmbH, gespeichert am 1. März 2026 um 12:00 UTC.');
      expect(mail.text).toContain('Zu Ihrer Sicherheit warten Auszahlungen bis zum 8. März 2026 um 12:00 UTC, 7 Tage nach der Änderung.');
      expect(mail.text).toContain('Einstellungen öffnen http://localhost:3000/dashboard/test/settings');
      expect(mail.text).toContain(`Sie erhalten diese E-Mail als Inhaber von Hafen Druck.`);
      expect(mail.text).not.toContain('widerrufen');
      expect(`${mail.text}${mail.html}`).not.toContain('370400440532013000');
    }
    expect(await testEmails(api, other.key, 'bank_account_changed')).toEqual([]);
    const audited = await auditOf(api, store, 'bank_account.update');
    expect(audited).toEqual([
      expect.objectContaining({
        keyHint: `user:${store.owners[0]}`,
        livemode: false,
        method: 'POST',
        path: '/dashboard/test/settings',
        details: { livemode: false, iban_last4: '3000', changed: true },
      }),
    ]);

    // The same account a day later: a save, not a change; the wait keeps its date.
    await advanceClock(api, store.key, DAY);
    await saveAs(api, store, false, { iban: 'de89370400440532013000', accountHolder: 'Hafen Druck GmbH' });
    expect(await holdOf(api, store.key)).toEqual({ reason: 'destination_changed', until: epoch(T0) + 7 * DAY });
    const again = (await testEmails(api, store.key, 'bank_account_changed')).slice(0, 2);
    expect(again.map((mail: { subject: string; created: number }) => [mail.subject, mail.created])).toEqual([
      ['Das Bankkonto von Hafen Druck wurde gespeichert', epoch(T0) + DAY],
      ['Das Bankkonto von Hafen Druck wurde gespeichert', epoch(T0) + DAY],
    ]);
    expect(again[0].text).toContain('Das Konto •••• 3000 von Hafen Druck GmbH wurde am 2. März 2026 um 12:00 UTC unverändert erneut gespeichert.');

    // Only the holder changes: a change, and the wait starts again.
    await saveAs(api, store, false, { iban: TEST_IBAN, accountHolder: 'Hafen Druck AG' });
    expect(await holdOf(api, store.key)).toEqual({ reason: 'destination_changed', until: epoch(T0) + 8 * DAY });
    expect((await auditOf(api, store, 'bank_account.update')).map((entry) => entry.details)).toEqual([
      { livemode: false, iban_last4: '3000', changed: true },
      { livemode: false, iban_last4: '3000', changed: false },
      { livemode: false, iban_last4: '3000', changed: true },
    ]);
    // The admin and the owner still invited are told nothing.
    const recipients = new Set((await emailRows(api, store)).map((row) => row.toAddress));
    expect([...recipients].sort()).toEqual([...store.owners].sort());
    // No line of the audit trail holds the whole IBAN.
    const trail = await api.services.db.select().from(auditEvents).where(eq(auditEvents.storeId, store.id));
    expect(JSON.stringify(trail)).not.toContain(TEST_IBAN);
  });

  it('a wrong IBAN or holder is 400 parameter_invalid naming the field; nothing is saved, audited or e-mailed', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Careful Prints' });
    const cases: [string, string, string, string][] = [
      ['DE88370400440532013000', 'Careful Prints', 'iban', 'The IBAN has check digits that do not match the rest: check it for a typing error.'],
      ['US64SVBKUS6S3300958879', 'Careful Prints', 'iban', 'The IBAN must be of a country in the SEPA schemes, not US.'],
      ['FR142004101005050001M02606', 'Careful Prints', 'iban', 'The IBAN of FR must have 27 characters, not 26.'],
      ['', 'Careful Prints', 'iban', 'The IBAN must start with a country code and two check digits, followed by letters and digits only.'],
      [TEST_IBAN, '   ', 'account_holder', 'The account holder must have 1 to 70 characters.'],
      [TEST_IBAN, 'x'.repeat(71), 'account_holder', 'The account holder must have 1 to 70 characters.'],
    ];
    for (const [iban, accountHolder, param, message] of cases) {
      expect(await refusal(saveAs(api, store, true, { iban, accountHolder }))).toEqual({ code: 'parameter_invalid', param, status: 400, message });
    }
    expect(await savedBankAccount(api.services.db, scopeOf(store, true))).toBeUndefined();
    expect(await auditOf(api, store, 'bank_account.update')).toEqual([]);
    expect(await emailRows(api, store)).toEqual([]);
    expect(await holdOf(api, store.liveKey)).toEqual({ reason: 'destination_missing', until: null });
    // 70 characters, once trimmed, are a holder.
    await saveAs(api, store, true, { iban: TEST_IBAN, accountHolder: ` ${'x'.repeat(70)} ` });
    expect((await savedBankAccount(api.services.db, scopeOf(store, true)))?.accountHolder).toBe('x'.repeat(70));
  });
});

describe('holds', () => {
  it('live mode: destination_missing, then destination_changed until the save + 7 days; a test save is not live mode’s; another store is untouched; live e-mails stay out of the test outbox', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Live Prints', language: 'de' });
    const other = await storeWithTeam(api, { name: 'Other Prints' });
    await fund(api, store, true, 20_000);
    expect(await holdOf(api, store.liveKey)).toEqual({ reason: 'destination_missing', until: null });
    const missing = await createPayout(api, store.liveKey);
    expectError(missing, 409, 'payouts_held');
    expect(missing.body.error.message).toBe('Payouts are held (destination_missing) until its cause is removed.');

    await saveAs(api, store, false, { iban: 'NL91ABNA0417164300', accountHolder: 'Live Prints BV' });
    expect(await holdOf(api, store.liveKey)).toEqual({ reason: 'destination_missing', until: null });

    api.clock.set(new Date(T0.getTime() + 3600_000));
    await saveAs(api, store, true, { iban: 'FR14 2004 1010 0505 0001 3M02 606', accountHolder: 'Live Prints SARL' });
    const until = epoch(T0) + 3600 + 7 * DAY;
    expect(await holdOf(api, store.liveKey)).toEqual({ reason: 'destination_changed', until });
    expect(await holdOf(api, store.key)).toEqual({ reason: 'destination_changed', until: epoch(T0) + 7 * DAY });
    expect(await holdOf(api, other.liveKey)).toEqual({ reason: 'destination_missing', until: null });
    expect(await holdOf(api, other.key)).toBeNull();
    expectError(await createPayout(api, store.liveKey), 409, 'payouts_held');

    api.clock.set(new Date((until - 1) * 1000));
    expect(await holdOf(api, store.liveKey)).toEqual({ reason: 'destination_changed', until });
    api.clock.set(new Date(until * 1000));
    expect(await holdOf(api, store.liveKey)).toBeNull();
    // A live payout waits for its bank file, to the account saved.
    const payout = await createPayout(api, store.liveKey);
    expect(payout.status).toBe(201);
    expect(payout.body).toMatchObject({ amount: 20_000, status: 'pending', destination: { iban_last4: '2606', account_holder: 'Live Prints SARL' }, livemode: true });
    expect(await ibanOf(payout.body.id)).toBe('FR1420041010050500013M02606');

    // Each mode's e-mails in their own outbox: the test outbox lists the test save only.
    const rows = await emailRows(api, store);
    expect(rows.map((row) => [row.livemode, row.template, row.language]).sort()).toEqual([
      [false, 'bank_account_changed', 'de'],
      [false, 'bank_account_changed', 'de'],
      [true, 'bank_account_changed', 'de'],
      [true, 'bank_account_changed', 'de'],
    ]);
    expect((await testEmails(api, store.key, 'bank_account_changed')).map((mail: { id: string }) => mail.id).sort()).toEqual(
      rows
        .filter((row) => !row.livemode)
        .map((row) => row.id)
        .sort(),
    );
    expect(rows.filter((row) => row.livemode).every((row) => row.id.startsWith('em_live_'))).toBe(true);
    expect((await auditOf(api, store, 'bank_account.update')).map((entry) => [entry.livemode, entry.path, entry.details])).toEqual([
      [false, '/dashboard/test/settings', { livemode: false, iban_last4: '4300', changed: true }],
      [true, '/dashboard/settings', { livemode: true, iban_last4: '2606', changed: true }],
    ]);
  });

  it('a suspended store is held first in live mode (account_suspended), scheduled passes make no payout under a hold, and one after it ends', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Paused Prints' });
    await saveAs(api, store, true, { iban: 'AT611904300234573201', accountHolder: 'Paused Prints' });
    await api.services.db.update(stores).set({ suspended: true }).where(eq(stores.id, store.id));
    const now = new Date(T0.getTime() + 8 * DAY * 1000);
    expect(await payoutHold(api.services.db, scopeOf(store, true), { suspended: true, now })).toEqual({ reason: 'account_suspended', until: null });
    expect(await payoutHold(api.services.db, scopeOf(store, true), { suspended: false, now })).toBeNull();
    expect(await payoutHold(api.services.db, scopeOf(store, false), { suspended: true, now })).toBeNull();

    // Weekly in test mode (T0 is a Sunday): Monday falls within the wait after a save, the Monday after does not.
    await changePayoutSchedule(await actingOwner(api, store, false), scopeOf(store, false), 'weekly');
    await fund(api, store, false, 3000);
    await saveAs(api, store, false, { iban: 'BE68539007547034', accountHolder: 'Paused Prints SRL' });
    await advanceClock(api, store.key, DAY);
    expect((await listOf(api, '/api/v1/payouts', store.key)).body.data).toEqual([]);
    await advanceClock(api, store.key, 7 * DAY);
    const made = (await listOf(api, '/api/v1/payouts', store.key)).body.data;
    expect(made).toEqual([expect.objectContaining({ amount: 3000, destination: { iban_last4: '7034', account_holder: 'Paused Prints SRL' }, created: epoch(T0) + 8 * DAY })]);
    expect(await runScheduledPayouts(api.services, scopeOf(store, false))).toBe(0);
  });
});

describe('settings beside the bank account', () => {
  it('the payout schedule per mode, audited: a switch pays out from the next date, never at once for one already passed', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Schedule Prints' });
    await fund(api, store, false, 4000);
    await api.request('POST', '/api/v1/test_helpers/advance_clock', { key: store.key, body: { seconds: 2 * DAY } });
    // Tuesday: last Monday passed while payouts were manual.
    await changePayoutSchedule(await actingOwner(api, store, false), scopeOf(store, false), 'weekly');
    expect(await runScheduledPayouts(api.services, scopeOf(store, false))).toBe(0);
    const balance = (await api.request('GET', '/api/v1/balance', { key: store.key })).body;
    expect(balance).toMatchObject({ available: 4000, payout_schedule: 'weekly', next_payout_at: epoch(T0) + 7.5 * DAY, payout_hold: null });
    expect((await api.request('GET', '/api/v1/balance', { key: store.liveKey })).body).toMatchObject({ payout_schedule: 'manual', next_payout_at: null });
    await changePayoutSchedule(await actingOwner(api, store, true), scopeOf(store, true), 'monthly');
    expect((await api.request('GET', '/api/v1/balance', { key: store.liveKey })).body).toMatchObject({ payout_schedule: 'monthly', next_payout_at: epoch(new Date('2026-04-01T00:00:00Z')) });
    expect((await auditOf(api, store, 'payout_schedule.update')).map((entry) => [entry.keyHint, entry.livemode, entry.details])).toEqual([
      [`user:${store.owners[0]}`, false, { livemode: false, schedule: 'manual' }],
      [`user:${store.owners[0]}`, true, { livemode: true, schedule: 'manual' }],
      [`user:${store.owners[0]}`, false, { livemode: false, schedule: 'weekly' }],
      [`user:${store.owners[0]}`, true, { livemode: true, schedule: 'monthly' }],
    ]);
    await advanceClock(api, store.key, 6 * DAY);
    expect((await listOf(api, '/api/v1/payouts', store.key)).body.data).toEqual([expect.objectContaining({ amount: 4000, created: epoch(T0) + 8 * DAY })]);
  });

  it('the store’s language, audited, is what the next owner e-mail is written in', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Language Prints' });
    await saveAs(api, store, false, { iban: TEST_IBAN, accountHolder: 'Language Prints' });
    const owner = await actingOwner(api, store, false);
    await changeStoreLanguage(api.services.db, store.id, owner.actor, 'de');
    await advanceClock(api, store.key, 60);
    await saveAs(api, store, false, { iban: TEST_IBAN, accountHolder: 'Language Prints' });
    const [german, english] = await testEmails(api, store.key, 'bank_account_changed').then((mails) => [mails[0], mails[2]]);
    expect([german.language, german.subject]).toEqual(['de', 'Das Bankkonto von Language Prints wurde gespeichert']);
    expect([english.language, english.subject]).toEqual(['en', 'The bank account of Language Prints was changed']);
    expect(english.text).toContain('Payouts now go to the account •••• 3000 of Language Prints, saved on March 1, 2026 at 12:00 PM UTC.');
    expect(english.text).toContain('You receive this e-mail as an owner of Language Prints.');
    expect((await auditOf(api, store, 'store.language_update')).map((entry) => [entry.keyHint, entry.livemode, entry.details])).toEqual([[`user:${store.owners[0]}`, null, { language: 'de' }]]);
  });

  it('no API key reads or sets a bank account: the API has no such operation', async () => {
    const document = JSON.parse(await readFile('openapi/openapi.json', 'utf8'));
    expect(Object.keys(document.paths).filter((path) => /bank/i.test(path))).toEqual([]);
    const store = await storeWithTeam(api, { name: 'API Prints' });
    for (const path of ['/api/v1/bank_account', '/api/v1/bank_accounts']) expect((await api.request('POST', path, { key: store.key, body: { iban: TEST_IBAN } })).status).toBe(404);
  });
});
