/** The e-mails to a store's owners about where its money goes: `bank_account_changed` and `payout_failed`. */
import type { DocumentLanguage, PayoutFailureReason } from '@/db/schema';
import type { BankAccountChangedData, PayoutFailedData } from '../outbox';
import { Details, EmailLayout, LinkParagraph, Paragraph, type MailView } from './layout';
import type { MailTemplate } from './template';

const TEXT = {
  en: {
    iban: 'IBAN',
    accountHolder: 'Account holder',
    changedMark: (value: string) => `${value} (new)`,
    openSettings: 'Open Settings',
    changedSubject: (store: string) => `The bank account of ${store} was changed`,
    savedSubject: (store: string) => `The bank account of ${store} was saved`,
    changedHeading: 'Bank account changed',
    savedHeading: 'Bank account saved',
    changedIntro: (last4: string, holder: string, when: string) => `Payouts now go to the account •••• ${last4} of ${holder}, saved on ${when} UTC.`,
    savedIntro: (last4: string, holder: string, when: string) => `The account •••• ${last4} of ${holder} was saved again, unchanged, on ${when} UTC.`,
    waiting: (when: string) => `For your safety, payouts wait until ${when} UTC, 7 days after the change.`,
    continuing: 'Payouts continue as scheduled.',
    notYou: 'If neither you nor another owner made this save, save the right account in Settings at once and write to us.',
    savedOn: 'Saved on',
    payoutsFrom: 'Payouts from',
    failedSubject: (store: string, payout: string) => `Payout ${payout} of ${store} failed`,
    failedHeading: 'A payout failed',
    failedIntro: (payout: string, amount: string, last4: string, holder: string, reason: string) => `The bank returned payout ${payout} of ${amount} to •••• ${last4} (${holder}): ${reason}.`,
    failedBalance: 'The amount is back on your balance. Payouts are held until the bank account is saved.',
    failedTodo: 'What to do: check the bank account in Settings, correct it if needed, and save it, also when it is right. The next payout then includes this amount.',
    payout: 'Payout',
    amount: 'Amount',
    reason: 'Reason',
    failedOn: 'Failed on',
    reasons: {
      account_closed: 'the account is closed',
      invalid_account: 'the account does not exist or cannot receive transfers',
      name_mismatch: 'the account holder’s name does not match the account',
      bank_rejected: 'the bank rejected the transfer',
    } satisfies Record<PayoutFailureReason, string>,
  },
  de: {
    iban: 'IBAN',
    accountHolder: 'Kontoinhaber',
    changedMark: (value: string) => `${value} (neu)`,
    openSettings: 'Einstellungen öffnen',
    changedSubject: (store: string) => `Das Bankkonto von ${store} wurde geändert`,
    savedSubject: (store: string) => `Das Bankkonto von ${store} wurde gespeichert`,
    changedHeading: 'Bankkonto geändert',
    savedHeading: 'Bankkonto gespeichert',
    changedIntro: (last4: string, holder: string, when: string) => `Auszahlungen gehen jetzt auf das Konto •••• ${last4} von ${holder}, gespeichert am ${when} UTC.`,
    savedIntro: (last4: string, holder: string, when: string) => `Das Konto •••• ${last4} von ${holder} wurde am ${when} UTC unverändert erneut gespeichert.`,
    waiting: (when: string) => `Zu Ihrer Sicherheit warten Auszahlungen bis zum ${when} UTC, 7 Tage nach der Änderung.`,
    continuing: 'Auszahlungen gehen wie geplant weiter.',
    notYou: 'Wenn weder Sie noch ein anderer Inhaber dies gespeichert hat, speichern Sie sofort das richtige Konto in den Einstellungen und schreiben Sie uns.',
    savedOn: 'Gespeichert am',
    payoutsFrom: 'Auszahlungen ab',
    failedSubject: (store: string, payout: string) => `Auszahlung ${payout} von ${store} ist fehlgeschlagen`,
    failedHeading: 'Eine Auszahlung ist fehlgeschlagen',
    failedIntro: (payout: string, amount: string, last4: string, holder: string, reason: string) =>
      `Die Bank hat die Auszahlung ${payout} über ${amount} an •••• ${last4} (${holder}) zurückgegeben: ${reason}.`,
    failedBalance: 'Der Betrag ist wieder in Ihrem Guthaben. Auszahlungen ruhen, bis das Bankkonto gespeichert wird.',
    failedTodo:
      'Was zu tun ist: Prüfen Sie das Bankkonto in den Einstellungen, korrigieren Sie es bei Bedarf und speichern Sie es, auch wenn es stimmt. Die nächste Auszahlung enthält dann diesen Betrag.',
    payout: 'Auszahlung',
    amount: 'Betrag',
    reason: 'Grund',
    failedOn: 'Fehlgeschlagen am',
    reasons: {
      account_closed: 'das Konto ist aufgelöst',
      invalid_account: 'das Konto existiert nicht oder kann keine Überweisungen empfangen',
      name_mismatch: 'der Name des Kontoinhabers passt nicht zum Konto',
      bank_rejected: 'die Bank hat die Überweisung abgelehnt',
    } satisfies Record<PayoutFailureReason, string>,
  },
} as const satisfies Record<DocumentLanguage, unknown>;

const textOf = (view: MailView) => TEXT[view.language];

export const bankAccountChanged: MailTemplate<BankAccountChangedData> = {
  subject: (view, data) => (data.ibanChanged || data.holderChanged ? textOf(view).changedSubject(view.storeName) : textOf(view).savedSubject(view.storeName)),
  Email({ view, data }) {
    const text = textOf(view);
    const { dateTime } = view.format;
    const changed = data.ibanChanged || data.holderChanged;
    const iban = `•••• ${data.ibanLast4}`;
    const intro = (changed ? text.changedIntro : text.savedIntro)(data.ibanLast4, data.accountHolder, dateTime(data.savedAt));
    const waiting = data.payoutsResumeAt > data.savedAt;
    return (
      <EmailLayout view={view} preview={intro} heading={changed ? text.changedHeading : text.savedHeading} audience="owner">
        <Paragraph>{intro}</Paragraph>
        <Paragraph>{waiting ? text.waiting(dateTime(data.payoutsResumeAt)) : text.continuing}</Paragraph>
        <Details
          rows={[
            { label: text.iban, value: data.ibanChanged ? text.changedMark(iban) : iban, strong: data.ibanChanged },
            { label: text.accountHolder, value: data.holderChanged ? text.changedMark(data.accountHolder) : data.accountHolder, strong: data.holderChanged },
            { label: text.savedOn, value: `${dateTime(data.savedAt)} UTC` },
            { label: text.payoutsFrom, value: `${dateTime(data.payoutsResumeAt)} UTC` },
          ]}
        />
        <Paragraph>{text.notYou}</Paragraph>
        <LinkParagraph href={`${view.dashboardUrl}/settings`}>{text.openSettings}</LinkParagraph>
      </EmailLayout>
    );
  },
};

export const payoutFailed: MailTemplate<PayoutFailedData> = {
  subject: (view, data) => textOf(view).failedSubject(view.storeName, data.payoutId),
  Email({ view, data }) {
    const text = textOf(view);
    const { amount, dateTime } = view.format;
    const reason = text.reasons[data.failureReason];
    const intro = text.failedIntro(data.payoutId, amount(data.amount), data.ibanLast4, data.accountHolder, reason);
    return (
      <EmailLayout view={view} preview={intro} heading={text.failedHeading} audience="owner">
        <Paragraph>{intro}</Paragraph>
        <Paragraph>{text.failedBalance}</Paragraph>
        <Details
          rows={[
            { label: text.payout, value: data.payoutId },
            { label: text.amount, value: amount(data.amount), strong: true },
            { label: text.reason, value: reason },
            { label: text.failedOn, value: `${dateTime(data.failedAt)} UTC` },
            { label: text.iban, value: `•••• ${data.ibanLast4}` },
            { label: text.accountHolder, value: data.accountHolder },
          ]}
        />
        <Paragraph>{text.failedTodo}</Paragraph>
        <LinkParagraph href={`${view.dashboardUrl}/settings`}>{text.openSettings}</LinkParagraph>
      </EmailLayout>
    );
  },
};
