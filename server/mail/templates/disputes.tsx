/** The e-mail to a store's owners and admins when a cardholder disputes a payment: `dispute_created`. */
import type { DisputeReason, DocumentLanguage } from '@/db/schema';
import type { DisputeCreatedData } from '../outbox';
import { Details, EmailLayout, LinkParagraph, Paragraph, type MailView } from './layout';
import type { MailTemplate } from './template';

const TEXT = {
  en: {
    subject: (store: string, order: string) => `A payment of ${store} was disputed: order ${order}`,
    heading: 'A payment was disputed',
    intro: (order: string, amount: string, reason: string) => `The cardholder disputed order ${order} with their card issuer (${reason}). The card network took back ${amount}.`,
    money: (fee: string) => `The amount and a dispute fee of ${fee} are taken off your balance now. If the dispute is won, the amount comes back; the fee stays.`,
    todo: (due: string) =>
      `What to do: open the order, describe what was sold and how it was delivered, add what the customer wrote, and submit the evidence by ${due} UTC. Without evidence by then the dispute is lost, the order is credited and its license keys, downloads and subscription end.`,
    openOrder: 'Open the order',
    dispute: 'Dispute',
    order: 'Order',
    amount: 'Amount',
    fee: 'Dispute fee',
    reason: 'Reason',
    respondBy: 'Respond by',
    reasons: {
      fraudulent: 'the cardholder says they did not make the payment',
      product_not_received: 'the cardholder says they did not receive what they paid for',
      duplicate: 'the cardholder says they were charged twice',
      subscription_canceled: 'the cardholder says they canceled the subscription',
      unrecognized: 'the cardholder does not recognise the payment',
      general: 'no specific reason given',
    } satisfies Record<DisputeReason, string>,
  },
  de: {
    subject: (store: string, order: string) => `Eine Zahlung von ${store} wurde zurückgebucht: Bestellung ${order}`,
    heading: 'Eine Zahlung wurde beanstandet',
    intro: (order: string, amount: string, reason: string) =>
      `Der Karteninhaber hat die Bestellung ${order} bei seinem Kartenaussteller beanstandet (${reason}). Das Kartennetz hat ${amount} zurückgebucht.`,
    money: (fee: string) => `Der Betrag und eine Rückbuchungsgebühr von ${fee} werden jetzt von Ihrem Guthaben abgezogen. Wird die Beanstandung gewonnen, kommt der Betrag zurück; die Gebühr bleibt.`,
    todo: (due: string) =>
      `Was zu tun ist: Öffnen Sie die Bestellung, beschreiben Sie, was verkauft und wie es geliefert wurde, fügen Sie hinzu, was der Kunde geschrieben hat, und reichen Sie die Nachweise bis ${due} UTC ein. Ohne Nachweise bis dahin ist die Beanstandung verloren, die Bestellung wird gutgeschrieben, und ihre Lizenzschlüssel, Downloads und ihr Abonnement enden.`,
    openOrder: 'Bestellung öffnen',
    dispute: 'Beanstandung',
    order: 'Bestellung',
    amount: 'Betrag',
    fee: 'Rückbuchungsgebühr',
    reason: 'Grund',
    respondBy: 'Antworten bis',
    reasons: {
      fraudulent: 'der Karteninhaber gibt an, die Zahlung nicht veranlasst zu haben',
      product_not_received: 'der Karteninhaber gibt an, das Bezahlte nicht erhalten zu haben',
      duplicate: 'der Karteninhaber gibt an, doppelt belastet worden zu sein',
      subscription_canceled: 'der Karteninhaber gibt an, das Abonnement gekündigt zu haben',
      unrecognized: 'der Karteninhaber erkennt die Zahlung nicht',
      general: 'kein bestimmter Grund angegeben',
    } satisfies Record<DisputeReason, string>,
  },
} as const satisfies Record<DocumentLanguage, unknown>;

const textOf = (view: MailView) => TEXT[view.language];

export const disputeCreated: MailTemplate<DisputeCreatedData> = {
  subject: (view, data) => textOf(view).subject(view.storeName, data.orderId),
  Email({ view, data }) {
    const text = textOf(view);
    const { amount, dateTime } = view.format;
    const intro = text.intro(data.orderId, amount(data.amount), text.reasons[data.reason]);
    const due = dateTime(data.evidenceDueBy);
    return (
      <EmailLayout view={view} preview={intro} heading={text.heading} audience="owner_or_admin">
        <Paragraph>{intro}</Paragraph>
        <Paragraph>{text.money(amount(data.fee))}</Paragraph>
        <Details
          rows={[
            { label: text.dispute, value: data.disputeId },
            { label: text.order, value: data.orderId },
            { label: text.amount, value: amount(data.amount), strong: true },
            { label: text.fee, value: amount(data.fee) },
            { label: text.reason, value: text.reasons[data.reason] },
            { label: text.respondBy, value: `${due} UTC`, strong: true },
          ]}
        />
        <Paragraph>{text.todo(due)}</Paragraph>
        <LinkParagraph href={`${view.dashboardUrl}/orders/${data.orderId}`}>{text.openOrder}</LinkParagraph>
      </EmailLayout>
    );
  },
};
