/** The words of payout statements in each store language. */
import type { BalanceTransactionType, DocumentLanguage } from '@/db/schema';

export interface StatementTexts {
  title: string;
  payout: string;
  paidBy: string;
  paidTo: string;
  vatId: string;
  storeId: string;
  created: string;
  arrivalDate: string;
  bankAccount: string;
  accountHolder: string;
  date: string;
  document: string;
  gross: string;
  vat: string;
  fee: string;
  net: string;
  total: string;
  totalsByType: string;
  paidOut: string;
  /** The totals' label of each type of entry a payout settles. */
  types: Record<Exclude<BalanceTransactionType, 'payout'>, string>;
  /** The document column of a cause without an invoice or credit note. */
  adjustment(reason: string): string;
  dispute(id: string): string;
  payoutReturned(type: 'payout_failure' | 'payout_cancel', id: string): string;
  notInvoice: string;
  signs: string;
  testModeNotice: string;
  page(current: number, count: number): string;
  locale: string;
}

const ENGLISH: StatementTexts = {
  title: 'Payout statement',
  payout: 'Payout',
  paidBy: 'Paid by',
  paidTo: 'Paid to',
  vatId: 'VAT ID',
  storeId: 'Store ID',
  created: 'Created',
  arrivalDate: 'Arrival date',
  bankAccount: 'Bank account',
  accountHolder: 'Account holder',
  date: 'Date',
  document: 'Document',
  gross: 'Gross',
  vat: 'VAT',
  fee: 'Fee',
  net: 'Net',
  total: 'Total',
  totalsByType: 'Totals by type',
  paidOut: 'Paid out',
  types: {
    payment: 'Payments',
    tax: 'VAT',
    fee: 'Fees',
    refund: 'Refunds',
    dispute: 'Disputes',
    dispute_fee: 'Dispute fees',
    dispute_reversal: 'Disputes won',
    payout_failure: 'Failed payouts returned',
    payout_cancel: 'Canceled payouts returned',
    adjustment: 'Adjustments',
  },
  adjustment: (reason) => `Adjustment: ${reason}`,
  dispute: (id) => `Dispute ${id}`,
  payoutReturned: (type, id) => `${type === 'payout_failure' ? 'Failed payout' : 'Canceled payout'} ${id}`,
  notInvoice: 'This statement is not an invoice. It lists the entries of the store’s balance that this payout settled, as they were recorded.',
  signs: 'Amounts in EUR from the store’s side: what lowers the payout is negative.',
  testModeNotice: 'TEST MODE: no money was paid out; this document has no legal effect.',
  page: (current, count) => `Page ${current} of ${count}`,
  locale: 'en-GB',
};

const GERMAN: StatementTexts = {
  title: 'Auszahlungsübersicht',
  payout: 'Auszahlung',
  paidBy: 'Auszahlender',
  paidTo: 'Empfänger',
  vatId: 'USt-IdNr.',
  storeId: 'Shop-ID',
  created: 'Erstellt',
  arrivalDate: 'Gutschrift',
  bankAccount: 'Bankkonto',
  accountHolder: 'Kontoinhaber',
  date: 'Datum',
  document: 'Beleg',
  gross: 'Brutto',
  vat: 'USt.',
  fee: 'Gebühr',
  net: 'Netto',
  total: 'Summe',
  totalsByType: 'Summen nach Art',
  paidOut: 'Ausgezahlt',
  types: {
    payment: 'Zahlungen',
    tax: 'Umsatzsteuer',
    fee: 'Gebühren',
    refund: 'Erstattungen',
    dispute: 'Rückbuchungen',
    dispute_fee: 'Rückbuchungsgebühren',
    dispute_reversal: 'Gewonnene Rückbuchungen',
    payout_failure: 'Zurückgebuchte fehlgeschlagene Auszahlungen',
    payout_cancel: 'Zurückgebuchte stornierte Auszahlungen',
    adjustment: 'Korrekturen',
  },
  adjustment: (reason) => `Korrektur: ${reason}`,
  dispute: (id) => `Rückbuchung ${id}`,
  payoutReturned: (type, id) => `${type === 'payout_failure' ? 'Fehlgeschlagene Auszahlung' : 'Stornierte Auszahlung'} ${id}`,
  notInvoice: 'Diese Übersicht ist keine Rechnung. Sie listet die Buchungen des Shop-Guthabens auf, die mit dieser Auszahlung ausgeglichen wurden, so wie sie gebucht wurden.',
  signs: 'Beträge in EUR aus Sicht des Shops: was die Auszahlung mindert, ist negativ.',
  testModeNotice: 'TESTMODUS: Es wurde kein Geld ausgezahlt; dieses Dokument hat keine rechtliche Wirkung.',
  page: (current, count) => `Seite ${current} von ${count}`,
  locale: 'de-DE',
};

export function statementTexts(language: DocumentLanguage): StatementTexts {
  return language === 'de' ? GERMAN : ENGLISH;
}
