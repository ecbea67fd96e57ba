/** `receipt`: a paid order, or a subscription's charge (the first, each renewal, a plan change's). */
import type { DocumentLanguage } from '@/db/schema';
import type { Card, OrderReceiptData, SubscriptionReceiptData } from '../outbox';
import { Details, EmailLayout, Paragraph, referenceRows, type Detail, type MailView } from './layout';
import type { MailTemplate } from './template';

const TEXT = {
  en: {
    orderSubject: (store: string, order: string) => `Your receipt from ${store}, order ${order}`,
    chargeSubject: (store: string, plan: string, payment: number, total: number) => `Your receipt from ${store}: ${plan}, payment ${payment} of ${total}`,
    changeSubject: (store: string, plan: string) => `Your receipt from ${store}: change to ${plan}`,
    planChange: 'Plan change',
    orderHeading: 'Thank you for your order',
    chargeHeading: 'Payment received',
    orderIntro: (amount: string, date: string) => `Your payment of ${amount} on ${date} was successful.`,
    chargeIntro: (amount: string, plan: string, date: string) => `Your payment of ${amount} for ${plan} on ${date} was successful.`,
    discount: (label: string) => `Discount (${label})`,
    subtotal: 'Subtotal',
    tax: 'VAT',
    total: 'Total paid',
    plan: 'Plan',
    payment: 'Payment',
    paymentOf: (payment: number, total: number) => `${payment} of ${total}`,
    period: 'Period',
    paidWith: 'Paid with',
    attached: (files: string) => `Your invoice is attached (${files}).`,
  },
  de: {
    orderSubject: (store: string, order: string) => `Ihre Zahlungsbestätigung von ${store}, Bestellung ${order}`,
    chargeSubject: (store: string, plan: string, payment: number, total: number) => `Ihre Zahlungsbestätigung von ${store}: ${plan}, Zahlung ${payment} von ${total}`,
    changeSubject: (store: string, plan: string) => `Ihre Zahlungsbestätigung von ${store}: Wechsel zu ${plan}`,
    planChange: 'Tarifwechsel',
    orderHeading: 'Vielen Dank für Ihre Bestellung',
    chargeHeading: 'Zahlung erhalten',
    orderIntro: (amount: string, date: string) => `Ihre Zahlung über ${amount} vom ${date} war erfolgreich.`,
    chargeIntro: (amount: string, plan: string, date: string) => `Ihre Zahlung über ${amount} für ${plan} vom ${date} war erfolgreich.`,
    discount: (label: string) => `Rabatt (${label})`,
    subtotal: 'Zwischensumme',
    tax: 'MwSt.',
    total: 'Bezahlt',
    plan: 'Tarif',
    payment: 'Zahlung',
    paymentOf: (payment: number, total: number) => `${payment} von ${total}`,
    period: 'Zeitraum',
    paidWith: 'Bezahlt mit',
    attached: (files: string) => `Ihre Rechnung ist beigefügt (${files}).`,
  },
} as const satisfies Record<DocumentLanguage, unknown>;

type ReceiptData = OrderReceiptData | SubscriptionReceiptData;

/** `Visa •••• 4242` (the gateway names brands in lower case). */
const cardText = (card: Card) => `${card.brand.charAt(0).toUpperCase()}${card.brand.slice(1)} •••• ${card.last4}`;

function orderRows(view: MailView, data: OrderReceiptData): Detail[] {
  const text = TEXT[view.language];
  const { amount } = view.format;
  return [
    // Each line before its discount, then the discount: they add up to the subtotal.
    ...data.lines.map((line) => ({ label: line.quantity > 1 ? `${line.description} × ${line.quantity}` : line.description, value: amount(line.amountSubtotal + (line.amountDiscount ?? 0)) })),
    ...(data.discount ? [{ label: text.discount(data.discount.label), value: `−${amount(data.discount.amount)}` }] : []),
    ...(data.amountTax > 0
      ? [
          { label: text.subtotal, value: amount(data.amountSubtotal) },
          { label: text.tax, value: amount(data.amountTax) },
        ]
      : []),
    { label: text.total, value: amount(data.amountTotal), strong: true },
  ];
}

function chargeRows(view: MailView, data: SubscriptionReceiptData): Detail[] {
  const text = TEXT[view.language];
  const { amount, date } = view.format;
  return [
    { label: text.plan, value: data.planName },
    data.payment === null ? { label: text.payment, value: text.planChange } : { label: text.payment, value: text.paymentOf(data.payment, data.totalPayments) },
    { label: text.period, value: `${date(data.periodStart)} – ${date(data.periodEnd)}` },
    { label: text.total, value: amount(data.amount), strong: true },
  ];
}

export const receipt: MailTemplate<ReceiptData> = {
  subject(view, data) {
    const text = TEXT[view.language];
    if (data.kind === 'order') return text.orderSubject(view.storeName, view.orderId!);
    return data.payment === null ? text.changeSubject(view.storeName, data.planName) : text.chargeSubject(view.storeName, data.planName, data.payment, data.totalPayments);
  },
  Email({ view, data }) {
    const text = TEXT[view.language];
    const { amount, date } = view.format;
    const intro = data.kind === 'order' ? text.orderIntro(amount(data.amountTotal), date(data.paidAt)) : text.chargeIntro(amount(data.amount), data.planName, date(data.paidAt));
    const rows = data.kind === 'order' ? orderRows(view, data) : chargeRows(view, data);
    const paidWith = data.card ? [{ label: text.paidWith, value: cardText(data.card) }] : [];
    return (
      <EmailLayout view={view} preview={intro} heading={data.kind === 'order' ? text.orderHeading : text.chargeHeading}>
        <Paragraph>{intro}</Paragraph>
        <Details rows={[...rows, ...paidWith, ...referenceRows(view)]} />
        {view.attachments.length > 0 ? <Paragraph>{text.attached(view.attachments.join(', '))}</Paragraph> : null}
      </EmailLayout>
    );
  },
};
