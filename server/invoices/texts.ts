/**
 * The words of invoices and credit notes in each customer language: the PDFs' labels, and the
 * line descriptions the service writes itself (a subscription's charge, a partial refund).
 */
import type { CreditNoteReason, DocumentLanguage } from '@/db/schema';

export interface DocumentTexts {
  invoiceTitle: string;
  creditNoteTitle: string;
  number: string;
  issueDate: string;
  supplyDate: string;
  supplyPeriod: string;
  orderReference: string;
  subscriptionReference: string;
  creditedInvoice: string;
  refundReference: string;
  disputeReference: string;
  seller: string;
  buyer: string;
  vatId: string;
  /** The member state or other country whose VAT rules the sale, named in the document's language. */
  countryOfTaxation(country: string): string;
  soldOnBehalfOf(store: string): string;
  description: string;
  quantity: string;
  unitPrice: string;
  vatRate: string;
  net: string;
  vat: string;
  amount: string;
  vatBreakdown: string;
  /** A rate in percent as the document's language writes it: `5.5 %`, `5,5 %`. */
  rateLabel(rate: number): string;
  netAtRate: string;
  vatAtRate: string;
  /** The row under a discounted line: `Discount (SUMMER25): −€3.00`, what was taken off before tax. */
  discountLine(label: string, amount: string): string;
  subtotal: string;
  totalVat: string;
  total: string;
  totalCredited: string;
  paidNotice: string;
  /** An invoice of 0 (fully discounted, or paid by credit): nothing was charged. */
  nothingDueNotice: string;
  creditNotice: string;
  /** A lost dispute's credit note: the card issuer took the money back, nothing more is refunded. */
  disputeCreditNotice: string;
  noVatNotice: string;
  withdrawalWaiver(acceptedAt: string, textVersion: string): string;
  testModeNotice: string;
  demoOperatorNotice: string;
  page(current: number, count: number): string;
  /** The one line of a subscription charge's invoice. */
  subscriptionLine(plan: string | null): string;
  /** The line of a charge that uses the credit a plan change left. */
  creditLine: string;
  /** A prorated plan change's two lines. */
  unusedTimeLine(plan: string): string;
  remainingTimeLine(plan: string): string;
  /** The line of a partial credit (a refund, a lost dispute) at one rate; the rate is named when the invoice has several. */
  partialCreditLine(reason: CreditNoteReason, invoiceNumber: string, rate: number | null): string;
  locale: string;
}

/** Percent with the locale's decimal mark and at most two decimals, a space before the sign as both languages set it. */
function percentIn(locale: string): (rate: number) => string {
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 2, useGrouping: false });
  return (rate) => `${number.format(rate)} %`;
}

const ENGLISH: DocumentTexts = {
  invoiceTitle: 'Invoice',
  creditNoteTitle: 'Credit note',
  number: 'Number',
  issueDate: 'Date of issue',
  supplyDate: 'Date of supply',
  supplyPeriod: 'Period of supply',
  orderReference: 'Order',
  subscriptionReference: 'Subscription',
  creditedInvoice: 'Corrects invoice',
  refundReference: 'Refund',
  disputeReference: 'Dispute',
  seller: 'Seller',
  buyer: 'Buyer',
  vatId: 'VAT ID',
  countryOfTaxation: (country) => `Country of taxation: ${country}`,
  soldOnBehalfOf: (store) => `Sold on behalf of ${store}`,
  description: 'Description',
  quantity: 'Qty',
  unitPrice: 'Unit price',
  vatRate: 'VAT',
  net: 'Net',
  vat: 'VAT',
  amount: 'Amount',
  vatBreakdown: 'VAT by rate',
  rateLabel: percentIn('en-GB'),
  netAtRate: 'Net',
  vatAtRate: 'VAT',
  discountLine: (label, amount) => `Discount (${label}): −${amount}`,
  subtotal: 'Subtotal (net)',
  totalVat: 'VAT',
  total: 'Total',
  totalCredited: 'Total credited',
  paidNotice: 'Paid in full by card. Nothing is due.',
  nothingDueNotice: 'Nothing was charged. Nothing is due.',
  creditNotice: 'The amount credited is refunded to the card used for the payment.',
  disputeCreditNotice: 'The amount credited was taken back through the card issuer’s dispute (chargeback); nothing further is refunded.',
  noVatNotice: 'No VAT was charged on this sale.',
  withdrawalWaiver: (acceptedAt, textVersion) =>
    `The customer agreed on ${acceptedAt} that delivery of the digital content starts before the withdrawal period ends, and acknowledged losing the right of withdrawal thereby (text version ${textVersion}).`,
  testModeNotice: 'TEST MODE: no payment was taken; this document has no legal effect.',
  demoOperatorNotice: 'Demo seller details: configure OPERATOR_LEGAL_NAME, OPERATOR_ADDRESS, OPERATOR_VAT_ID and OPERATOR_EMAIL.',
  page: (current, count) => `Page ${current} of ${count}`,
  subscriptionLine: (plan) => plan || 'Subscription',
  creditLine: 'Credit from plan change',
  unusedTimeLine: (plan) => `Unused time on ${plan}`,
  remainingTimeLine: (plan) => `Remaining time on ${plan}`,
  partialCreditLine: (reason, invoiceNumber, rate) => `${reason === 'refund' ? 'Partial refund' : 'Chargeback'} of invoice ${invoiceNumber}${rate === null ? '' : ` (VAT ${ENGLISH.rateLabel(rate)})`}`,
  locale: 'en-GB',
};

const GERMAN: DocumentTexts = {
  invoiceTitle: 'Rechnung',
  creditNoteTitle: 'Gutschrift',
  number: 'Nummer',
  issueDate: 'Ausstellungsdatum',
  supplyDate: 'Leistungsdatum',
  supplyPeriod: 'Leistungszeitraum',
  orderReference: 'Bestellung',
  subscriptionReference: 'Abonnement',
  creditedInvoice: 'Korrektur zu Rechnung',
  refundReference: 'Erstattung',
  disputeReference: 'Rückbuchung',
  seller: 'Verkäufer',
  buyer: 'Käufer',
  vatId: 'USt-IdNr.',
  countryOfTaxation: (country) => `Besteuerungsland: ${country}`,
  soldOnBehalfOf: (store) => `Verkauft im Auftrag von ${store}`,
  description: 'Beschreibung',
  quantity: 'Menge',
  unitPrice: 'Einzelpreis',
  vatRate: 'USt.',
  net: 'Netto',
  vat: 'USt.',
  amount: 'Betrag',
  vatBreakdown: 'Umsatzsteuer nach Steuersatz',
  rateLabel: percentIn('de-DE'),
  netAtRate: 'Netto',
  vatAtRate: 'USt.',
  discountLine: (label, amount) => `Rabatt (${label}): −${amount}`,
  subtotal: 'Zwischensumme (netto)',
  totalVat: 'Umsatzsteuer',
  total: 'Gesamtbetrag',
  totalCredited: 'Gutgeschrieben',
  paidNotice: 'Vollständig per Karte bezahlt. Es ist nichts mehr zu zahlen.',
  nothingDueNotice: 'Es wurde nichts berechnet. Es ist nichts zu zahlen.',
  creditNotice: 'Der gutgeschriebene Betrag wird auf die Karte der Zahlung erstattet.',
  disputeCreditNotice: 'Der gutgeschriebene Betrag wurde über die Rückbuchung des Kartenausstellers zurückgeholt; es wird nichts weiter erstattet.',
  noVatNotice: 'Auf diesen Verkauf wurde keine Umsatzsteuer erhoben.',
  withdrawalWaiver: (acceptedAt, textVersion) =>
    `Der Kunde hat am ${acceptedAt} zugestimmt, dass die Lieferung der digitalen Inhalte vor Ablauf der Widerrufsfrist beginnt, und zur Kenntnis genommen, dass er dadurch sein Widerrufsrecht verliert (Textfassung ${textVersion}).`,
  testModeNotice: 'TESTMODUS: Es wurde keine Zahlung eingezogen; dieses Dokument hat keine rechtliche Wirkung.',
  demoOperatorNotice: 'Demo-Verkäuferangaben: OPERATOR_LEGAL_NAME, OPERATOR_ADDRESS, OPERATOR_VAT_ID und OPERATOR_EMAIL konfigurieren.',
  page: (current, count) => `Seite ${current} von ${count}`,
  subscriptionLine: (plan) => plan || 'Abonnement',
  creditLine: 'Guthaben aus Tarifwechsel',
  unusedTimeLine: (plan) => `Nicht genutzte Zeit: ${plan}`,
  remainingTimeLine: (plan) => `Restzeit: ${plan}`,
  partialCreditLine: (reason, invoiceNumber, rate) =>
    `${reason === 'refund' ? 'Teilerstattung' : 'Rückbuchung'} zu Rechnung ${invoiceNumber}${rate === null ? '' : ` (USt. ${GERMAN.rateLabel(rate)})`}`,
  locale: 'de-DE',
};

export function documentTexts(language: DocumentLanguage): DocumentTexts {
  return language === 'de' ? GERMAN : ENGLISH;
}
