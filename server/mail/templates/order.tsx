/** The e-mails about an order after its payment: `refund` and `withdrawal_received`. */
import type { DocumentLanguage } from '@/db/schema';
import type { RefundData, WithdrawalReceivedData } from '../outbox';
import { Details, EmailLayout, Paragraph, referenceRows, type MailView } from './layout';
import type { MailTemplate } from './template';

const TEXT = {
  en: {
    refundSubject: (store: string, order: string) => `Your refund from ${store}, order ${order}`,
    refundHeading: 'Your refund',
    refundIntro: (amount: string, order: string) => `We refunded ${amount} for order ${order} to the card you paid with.`,
    refundTiming: 'It can take 5 to 10 business days to appear on your statement.',
    refunded: 'Refunded',
    orderTotal: 'Order total',
    refundedTotal: 'Refunded in total',
    refundedOn: 'Refunded on',
    attached: (files: string) => `Your credit note is attached (${files}).`,
    withdrawalSubject: (order: string) => `We received your withdrawal from order ${order}`,
    withdrawalHeading: 'We received your withdrawal',
    withdrawalIntro: (order: string, when: string) => `Your withdrawal from order ${order} was received on ${when} UTC.`,
    withdrawalRefund: (date: string) => `You will be refunded by ${date} at the latest, to the card you paid with.`,
    received: 'Received',
    refundBy: 'Refund by',
    reason: 'Your reason',
  },
  de: {
    refundSubject: (store: string, order: string) => `Ihre Erstattung von ${store}, Bestellung ${order}`,
    refundHeading: 'Ihre Erstattung',
    refundIntro: (amount: string, order: string) => `Wir haben ${amount} für die Bestellung ${order} auf die Karte erstattet, mit der Sie bezahlt haben.`,
    refundTiming: 'Es kann 5 bis 10 Werktage dauern, bis die Gutschrift auf Ihrer Abrechnung erscheint.',
    refunded: 'Erstattet',
    orderTotal: 'Bestellsumme',
    refundedTotal: 'Insgesamt erstattet',
    refundedOn: 'Erstattet am',
    attached: (files: string) => `Ihre Gutschrift ist beigefügt (${files}).`,
    withdrawalSubject: (order: string) => `Ihr Widerruf der Bestellung ${order} ist eingegangen`,
    withdrawalHeading: 'Wir haben Ihren Widerruf erhalten',
    withdrawalIntro: (order: string, when: string) => `Ihr Widerruf der Bestellung ${order} ist am ${when} UTC eingegangen.`,
    withdrawalRefund: (date: string) => `Sie erhalten Ihre Zahlung spätestens bis zum ${date} auf die Karte erstattet, mit der Sie bezahlt haben.`,
    received: 'Eingegangen',
    refundBy: 'Erstattung bis',
    reason: 'Ihr Grund',
  },
} as const satisfies Record<DocumentLanguage, unknown>;

const textOf = (view: MailView) => TEXT[view.language];

export const refund: MailTemplate<RefundData> = {
  subject: (view) => textOf(view).refundSubject(view.storeName, view.orderId!),
  Email({ view, data }) {
    const text = textOf(view);
    const { amount, date } = view.format;
    const intro = text.refundIntro(amount(data.amount), view.orderId!);
    const partial = data.refundedTotal !== data.amount;
    return (
      <EmailLayout view={view} preview={intro} heading={text.refundHeading}>
        <Paragraph>{intro}</Paragraph>
        <Paragraph>{text.refundTiming}</Paragraph>
        <Details
          rows={[
            { label: text.refunded, value: amount(data.amount), strong: true },
            { label: text.orderTotal, value: amount(data.orderTotal) },
            ...(partial ? [{ label: text.refundedTotal, value: amount(data.refundedTotal) }] : []),
            { label: text.refundedOn, value: date(data.refundedAt) },
            ...referenceRows(view),
          ]}
        />
        {view.attachments.length > 0 ? <Paragraph>{text.attached(view.attachments.join(', '))}</Paragraph> : null}
      </EmailLayout>
    );
  },
};

export const withdrawalReceived: MailTemplate<WithdrawalReceivedData> = {
  subject: (view) => textOf(view).withdrawalSubject(view.orderId!),
  Email({ view, data }) {
    const text = textOf(view);
    const { date, dateTime } = view.format;
    const intro = text.withdrawalIntro(view.orderId!, dateTime(data.requestedAt));
    return (
      <EmailLayout view={view} preview={intro} heading={text.withdrawalHeading}>
        <Paragraph>{intro}</Paragraph>
        <Paragraph>{text.withdrawalRefund(date(data.refundDueBy))}</Paragraph>
        <Details
          rows={[
            { label: text.received, value: `${dateTime(data.requestedAt)} UTC` },
            { label: text.refundBy, value: date(data.refundDueBy) },
            ...(data.reason ? [{ label: text.reason, value: data.reason }] : []),
            ...referenceRows(view),
          ]}
        />
      </EmailLayout>
    );
  },
};
