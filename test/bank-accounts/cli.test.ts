import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { payouts } from '@/db/schema';
import { advanceClock } from '../billing/support';
import { expectFailure, expectJson, useAdminCli } from '../support/admin-cli';
import { epoch, expectError, T0 } from '../support/api';
import { useTestApi } from '../support/server';
import { auditOf, createPayout, DAY, emailRows, fund, holdOf, saveAs, storeWithTeam, TEST_IBAN, testEmails } from './support';

/** The operator's side, as a process: the store's language, and a failed payout told to its owners. */
const api = useTestApi();
const { runCli } = useAdminCli(api);

describe('npm run admin: language and failed payouts', { timeout: 150_000 }, () => {
  it('store:update --language de|en prints the store with its language, audited; another value exits 2', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Console Prints' });
    const german = expectJson(await runCli(['store:update', '--id', store.id, '--language', 'de']));
    expect(german).toMatchObject({ id: store.id, name: 'Console Prints', language: 'de' });
    expect((await auditOf(api, store, 'admin.store.update')).map((entry) => entry.details)).toEqual([{ changes: { language: 'de' } }]);
    const listed = expectJson(await runCli(['store:list'])).data.find((row: { id: string }) => row.id === store.id);
    expect(listed).toEqual(german);
    expectFailure(await runCli(['store:update', '--id', store.id, '--language', 'fr']), 2, /--language takes en or de, not "fr"/);
    expect(expectJson(await runCli(['store:update', '--id', store.id, '--language', 'en'])).language).toBe('en');
  });

  it('payouts:mark-failed e-mails payout_failed to each owner in the store’s language (related payout_id) and holds payouts until a save, in test and live mode', async () => {
    api.clock.set(T0);
    const store = await storeWithTeam(api, { name: 'Druckerei Kai', language: 'de' });
    await fund(api, store, false, 5000);
    const paid = (await createPayout(api, store.key)).body;
    const failed = expectJson(await runCli(['payouts:mark-failed', '--id', paid.id, '--reason', 'name_mismatch']));
    expect(failed).toEqual({ ...paid, status: 'failed', failure_reason: 'name_mismatch' });
    expect(await holdOf(api, store.key)).toEqual({ reason: 'payout_failed', until: null });
    const held = await createPayout(api, store.key);
    expectError(held, 409, 'payouts_held');
    expect(held.body.error.message).toBe('Payouts are held (payout_failed) until its cause is removed.');

    const mails = await testEmails(api, store.key, 'payout_failed');
    expect(mails.map((mail: { to: string }) => mail.to).sort()).toEqual([...store.owners].sort());
    for (const mail of mails) {
      expect(mail).toMatchObject({
        template: 'payout_failed',
        language: 'de',
        subject: `Auszahlung ${paid.id} von Druckerei Kai ist fehlgeschlagen`,
        related: { order_id: null, subscription_id: null, invoice_id: null, credit_note_id: null, payout_id: paid.id },
        created: epoch(T0),
        attachments: [],
      });
    }
    expect(mails[0].text).toBe(
      [
        'Druckerei Kai',
        '',
        '',
        'Eine Auszahlung ist fehlgeschlagen',
        '',
        `Die Bank hat die Auszahlung ${paid.id} über 50,00\u00a0€ an •••• 3000 (Druckerei Kai) zurückgegeben: der Name des Kontoinhabers passt nicht zum Konto.`,
        '',
        'Der Betrag ist wieder in Ihrem Guthaben. Auszahlungen ruhen, bis das Bankkonto gespeichert wird.',
        '',
        `Auszahlung          ${paid.id}`,
        'Betrag              50,00\u00a0€',
        'Grund               der Name des Kontoinhabers passt nicht zum Konto',
        'Fehlgeschlagen am   1. März 2026 um 12:00 UTC',
        'IBAN                •••• 3000',
        'Kontoinhaber        Druckerei Kai',
        '',
        'Was zu tun ist: Prüfen Sie das Bankkonto in den Einstellungen, korrigieren Sie es bei Bedarf und speichern Sie es, auch wenn es stimmt. Die nächste Auszahlung enthält dann diesen Betrag.',
        '',
        'Einstellungen öffnen http://localhost:3000/dashboard/test/settings',
        '',
        '----------------------------------------',
        '',
        'Sie erhalten diese E-Mail als Inhaber von Druckerei Kai.',
      ].join('\n') + mails[0].text.slice(mails[0].text.indexOf('\n\nExample Payments GmbH')),
    );

    // A save ends that hold; test mode's first save is a change, so the 7-day wait follows.
    await advanceClock(api, store.key, 60);
    await saveAs(api, store, false, { iban: TEST_IBAN, accountHolder: 'Druckerei Kai' });
    expect(await holdOf(api, store.key)).toEqual({ reason: 'destination_changed', until: epoch(T0) + 60 + 7 * DAY });

    // Live mode: an account saved a week ago, a payout sent by bank file, returned.
    await saveAs(api, store, true, { iban: 'AT61 1904 3002 3457 3201', accountHolder: 'Druckerei Kai e.U.' });
    api.clock.set(new Date(T0.getTime() + 7 * DAY * 1000));
    await fund(api, store, true, 12_000);
    const live = (await createPayout(api, store.liveKey)).body;
    expect(live).toMatchObject({ status: 'pending', amount: 12_000, destination: { iban_last4: '3201', account_holder: 'Druckerei Kai e.U.' } });
    // Its bank file (payouts:export) is not this test's: the payout as that file leaves it.
    await api.services.db.update(payouts).set({ status: 'in_transit' }).where(eq(payouts.id, live.id));
    expect(expectJson(await runCli(['payouts:mark-failed', '--id', live.id, '--reason', 'account_closed']))).toMatchObject({ status: 'failed', failure_reason: 'account_closed' });
    expect(await holdOf(api, store.liveKey)).toEqual({ reason: 'payout_failed', until: null });
    const liveMails = (await emailRows(api, store)).filter((row) => row.template === 'payout_failed' && row.livemode);
    expect(liveMails.map((row) => [row.toAddress, row.language, row.payoutId, row.data]).sort()).toEqual(
      [...store.owners]
        .sort()
        .map((owner) => [
          owner,
          'de',
          live.id,
          { payoutId: live.id, amount: 12_000, failureReason: 'account_closed', failedAt: epoch(T0) + 7 * DAY, ibanLast4: '3201', accountHolder: 'Druckerei Kai e.U.' },
        ]),
    );
    expect((await testEmails(api, store.key, 'payout_failed')).map((mail: { related: { payout_id: string } }) => mail.related.payout_id)).toEqual([paid.id, paid.id]);

    // The same account saved again after the failure: no change, no wait; the amount goes out again.
    api.clock.set(new Date(T0.getTime() + (7 * DAY + 60) * 1000));
    await saveAs(api, store, true, { iban: 'AT611904300234573201', accountHolder: 'Druckerei Kai e.U.' });
    expect(await holdOf(api, store.liveKey)).toBeNull();
    expect((await createPayout(api, store.liveKey)).body).toMatchObject({ status: 'pending', amount: 12_000, destination: { iban_last4: '3201', account_holder: 'Druckerei Kai e.U.' } });
  });
});
