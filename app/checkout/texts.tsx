import type { ReactNode } from 'react';
import type { DocumentLanguage } from '@/db/schema';

/**
 * The words of the hosted pages' frame (header, test-mode banner, footer) and card fields, in
 * English or German: the checkout pages are English; the update-payment-method page is written in
 * the customer's language.
 */
export const FRAME_TEXTS = {
  en: {
    skip: 'Skip to content',
    secure: 'Secure checkout',
    testMode: 'Test mode',
    testCards: (approve: ReactNode, decline: ReactNode) => (
      <>
        <strong>Test mode.</strong> No real money moves. Use card {approve} to approve or {decline} to decline, any future expiry (MM/YY) and any 3-digit CVC.
      </>
    ),
    disputeCards: (fraud: ReactNode, notReceived: ReactNode) => (
      <>
        {fraud} and {notReceived} pay, then open a dispute of the payment (fraud, not received), decided when the test clock passes its deadline.
      </>
    ),
    countryCards: (germany: ReactNode, france: ReactNode, austria: ReactNode, italy: ReactNode, unitedStates: ReactNode) => (
      <>
        Cards issued in a country (the evidence of where you are): {germany} Germany, {france} France, {austria} Austria, {italy} Italy, {unitedStates} United States.
      </>
    ),
    renewalCards: (everyRenewal: ReactNode, firstRenewal: ReactNode) => (
      <>
        For later charges: {everyRenewal} declines every renewal, {firstRenewal} declines the first renewal only.
      </>
    ),
    policies: (store: string) => `${store} policies`,
    terms: 'Terms',
    privacy: 'Privacy policy',
    seller: 'Seller (merchant of record)',
    vatId: 'VAT ID',
    demoSeller: ' (demo seller details, not a real company)',
    cardNumber: 'Card number',
    cardsAccepted: 'Cards accepted',
    expiry: 'Expiry',
    expiryFormat: 'MM/YY',
    cvc: 'CVC',
    cvcHint: '3 digits',
    cardEnding: (brand: string, last4: string) => `${brand} ending in ${last4}`,
  },
  de: {
    skip: 'Zum Inhalt springen',
    secure: 'Sichere Zahlung',
    testMode: 'Testmodus',
    testCards: (approve: ReactNode, decline: ReactNode) => (
      <>
        <strong>Testmodus.</strong> Es fließt kein echtes Geld. Karte {approve} wird angenommen, {decline} abgelehnt; dazu ein beliebiges künftiges Ablaufdatum (MM/JJ) und eine beliebige 3-stellige
        Prüfnummer.
      </>
    ),
    disputeCards: (fraud: ReactNode, notReceived: ReactNode) => (
      <>
        {fraud} und {notReceived} zahlen und eröffnen dann eine Rückbuchung der Zahlung (Betrug, nicht erhalten), entschieden, wenn die Testuhr ihre Frist überschreitet.
      </>
    ),
    countryCards: (germany: ReactNode, france: ReactNode, austria: ReactNode, italy: ReactNode, unitedStates: ReactNode) => (
      <>
        In einem Land ausgegebene Karten (der Nachweis, wo Sie sind): {germany} Deutschland, {france} Frankreich, {austria} Österreich, {italy} Italien, {unitedStates} Vereinigte Staaten.
      </>
    ),
    renewalCards: (everyRenewal: ReactNode, firstRenewal: ReactNode) => (
      <>
        Für spätere Abbuchungen: {everyRenewal} lehnt jede Verlängerung ab, {firstRenewal} nur die erste.
      </>
    ),
    policies: (store: string) => `Richtlinien von ${store}`,
    terms: 'AGB',
    privacy: 'Datenschutzerklärung',
    seller: 'Verkäufer (Merchant of Record)',
    vatId: 'USt-IdNr.',
    demoSeller: ' (Demo-Verkäuferangaben, kein echtes Unternehmen)',
    cardNumber: 'Kartennummer',
    cardsAccepted: 'Akzeptierte Karten',
    expiry: 'Ablaufdatum',
    expiryFormat: 'MM/JJ',
    cvc: 'Prüfnummer',
    cvcHint: '3 Ziffern',
    cardEnding: (brand: string, last4: string) => `${brand} mit Endziffern ${last4}`,
  },
} satisfies Record<DocumentLanguage, unknown>;
