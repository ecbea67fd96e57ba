/** The e-mails about a subscription's future: `payment_failed`, `renewal_reminder`, `trial_ending`, `subscription_canceled`, `cancellation_received`. */
import type { DocumentLanguage } from '@/db/schema';
import type { CancellationReceivedData, PaymentFailedData, RenewalReminderData, SubscriptionCanceledData, TrialEndingData } from '../outbox';
import { Details, EmailLayout, LinkParagraph, Paragraph, referenceRows, type MailView } from './layout';
import type { MailTemplate } from './template';
import { cardBrandName } from '../../kit/card-brand';
import { CANCEL_LINK_TEXT } from '../../kit/hosted-page/cancel-link';

const TEXT = {
  en: {
    plan: 'Plan',
    amount: 'Amount',
    failedSubject: (store: string, plan: string) => `Your payment for ${plan} at ${store} failed`,
    failedHeading: 'Your payment did not go through',
    failedIntro: (amount: string, plan: string, date: string) => `We could not charge ${amount} for ${plan} on ${date}.`,
    retries: 'We will try again on these dates. Please make sure your card can be charged; if every attempt fails, the subscription is canceled.',
    retry: (index: number) => `Attempt ${index}`,
    lastAttempt: 'That was the last attempt: the subscription is canceled and will not be charged again.',
    reminderSubject: (store: string, plan: string, date: string) => `${plan} at ${store} renews on ${date}`,
    reminderHeading: 'Your subscription renews soon',
    reminderIntro: (plan: string, date: string, amount: string) => `${plan} renews on ${date}: ${amount} will be charged to your card.`,
    reminderActions: 'Nothing to do if you wish to continue. To pay with another card, or to cancel before then:',
    updatePaymentMethod: 'Update payment method',
    renewsOn: 'Renews on',
    trialSubject: (store: string, plan: string, date: string) => `Your free trial of ${plan} at ${store} ends on ${date}`,
    trialHeading: 'Your free trial ends soon',
    trialIntro: (plan: string, date: string, amount: string) => `Your free trial of ${plan} ends on ${date}. Then ${amount} will be charged to your card.`,
    trialEnds: 'Trial ends',
    firstCharge: 'First charge',
    card: 'Card',
    cardOf: (brand: string, last4: string) => `${brand} ending in ${last4}`,
    payment: 'Payment',
    paymentOf: (payment: number, total: number) => `${payment} of ${total}`,
    canceledSubject: (store: string, plan: string) => `Your subscription ${plan} at ${store} is canceled`,
    canceledHeading: 'Your subscription is canceled',
    canceledIntro: (plan: string, date: string) => `${plan} was canceled on ${date}. You will not be charged again.`,
    canceledAfterFailures: (plan: string, date: string) => `${plan} was canceled on ${date} because its payment failed repeatedly. You will not be charged again.`,
    canceledAfterDispute: (plan: string, date: string) => `${plan} was canceled on ${date} because its payment was reversed through your card issuer. You will not be charged again.`,
    canceledAsDeclared: (plan: string, date: string) => `${plan} ended on ${date}, as you asked when you cancelled. You will not be charged again.`,
    canceledOn: 'Canceled on',
    receivedSubject: (store: string, plan: string) => `We received your cancellation of ${plan} at ${store}`,
    receivedHeading: 'Cancellation received',
    receivedScheduled: (plan: string, date: string) => `We received your cancellation of ${plan}. It ends on ${date}; you will not be charged again.`,
    receivedEnded: (plan: string) => `We received your cancellation of ${plan}. It has ended now; you will not be charged again.`,
    receivedExtraordinary: (store: string) => `You asked for an extraordinary cancellation: ${store} decides whether it ends sooner and tells you.`,
    keepIntro: (date: string) => `Changed your mind? Until ${date} you can keep your subscription:`,
    keep: 'Keep my subscription',
    received: 'Received',
    type: 'Type',
    types: { ordinary: 'Ordinary (end of the current period)', extraordinary: 'Extraordinary (as soon as possible)' },
    reason: 'Reason',
    endsOn: 'Ends on',
  },
  de: {
    plan: 'Tarif',
    amount: 'Betrag',
    failedSubject: (store: string, plan: string) => `Ihre Zahlung für ${plan} bei ${store} ist fehlgeschlagen`,
    failedHeading: 'Ihre Zahlung ist fehlgeschlagen',
    failedIntro: (amount: string, plan: string, date: string) => `Wir konnten ${amount} für ${plan} am ${date} nicht einziehen.`,
    retries: 'Wir versuchen es an diesen Tagen erneut. Bitte sorgen Sie dafür, dass Ihre Karte belastet werden kann; schlagen alle Versuche fehl, wird das Abonnement gekündigt.',
    retry: (index: number) => `Versuch ${index}`,
    lastAttempt: 'Das war der letzte Versuch: Das Abonnement ist gekündigt und wird nicht mehr belastet.',
    reminderSubject: (store: string, plan: string, date: string) => `${plan} bei ${store} verlängert sich am ${date}`,
    reminderHeading: 'Ihr Abonnement verlängert sich bald',
    reminderIntro: (plan: string, date: string, amount: string) => `${plan} verlängert sich am ${date}: ${amount} werden von Ihrer Karte abgebucht.`,
    reminderActions: 'Wenn Sie fortfahren möchten, ist nichts zu tun. Um mit einer anderen Karte zu zahlen oder vorher zu kündigen:',
    updatePaymentMethod: 'Zahlungsmethode aktualisieren',
    renewsOn: 'Verlängerung am',
    trialSubject: (store: string, plan: string, date: string) => `Ihr kostenloser Testzeitraum für ${plan} bei ${store} endet am ${date}`,
    trialHeading: 'Ihr kostenloser Testzeitraum endet bald',
    trialIntro: (plan: string, date: string, amount: string) => `Ihr kostenloser Testzeitraum für ${plan} endet am ${date}. Dann werden ${amount} von Ihrer Karte abgebucht.`,
    trialEnds: 'Testzeitraum endet',
    firstCharge: 'Erste Zahlung',
    card: 'Karte',
    cardOf: (brand: string, last4: string) => `${brand} mit Endziffern ${last4}`,
    payment: 'Zahlung',
    paymentOf: (payment: number, total: number) => `${payment} von ${total}`,
    canceledSubject: (store: string, plan: string) => `Ihr Abonnement ${plan} bei ${store} ist gekündigt`,
    canceledHeading: 'Ihr Abonnement ist gekündigt',
    canceledIntro: (plan: string, date: string) => `${plan} wurde am ${date} gekündigt. Es werden keine weiteren Zahlungen eingezogen.`,
    canceledAfterFailures: (plan: string, date: string) => `${plan} wurde am ${date} gekündigt, weil die Zahlung wiederholt fehlgeschlagen ist. Es werden keine weiteren Zahlungen eingezogen.`,
    canceledAfterDispute: (plan: string, date: string) =>
      `${plan} wurde am ${date} gekündigt, weil die Zahlung über Ihren Kartenaussteller zurückgebucht wurde. Es werden keine weiteren Zahlungen eingezogen.`,
    canceledAsDeclared: (plan: string, date: string) => `${plan} endete am ${date}, wie Sie es bei Ihrer Kündigung erklärt haben. Es werden keine weiteren Zahlungen eingezogen.`,
    canceledOn: 'Gekündigt am',
    receivedSubject: (store: string, plan: string) => `Ihre Kündigung von ${plan} bei ${store} ist eingegangen`,
    receivedHeading: 'Kündigung eingegangen',
    receivedScheduled: (plan: string, date: string) => `Ihre Kündigung von ${plan} ist eingegangen. Das Abonnement endet am ${date}; es werden keine weiteren Zahlungen eingezogen.`,
    receivedEnded: (plan: string) => `Ihre Kündigung von ${plan} ist eingegangen. Das Abonnement ist jetzt beendet; es werden keine weiteren Zahlungen eingezogen.`,
    receivedExtraordinary: (store: string) => `Sie haben außerordentlich gekündigt: ${store} entscheidet, ob das Abonnement früher endet, und teilt es Ihnen mit.`,
    keepIntro: (date: string) => `Haben Sie es sich anders überlegt? Bis zum ${date} können Sie Ihr Abonnement behalten:`,
    keep: 'Abonnement behalten (Keep my subscription)',
    received: 'Eingegangen',
    type: 'Art',
    types: { ordinary: 'Ordentlich (zum Ende des laufenden Zeitraums)', extraordinary: 'Außerordentlich (schnellstmöglich)' },
    reason: 'Grund',
    endsOn: 'Endet am',
  },
} as const satisfies Record<DocumentLanguage, unknown>;

const textOf = (view: MailView) => TEXT[view.language];

export const paymentFailed: MailTemplate<PaymentFailedData> = {
  subject: (view, data) => textOf(view).failedSubject(view.storeName, data.planName),
  Email({ view, data }) {
    const text = textOf(view);
    const { amount, date } = view.format;
    const intro = text.failedIntro(amount(data.amount), data.planName, date(data.failedAt));
    return (
      <EmailLayout view={view} preview={intro} heading={text.failedHeading}>
        <Paragraph>{intro}</Paragraph>
        <Paragraph>{data.canceled ? text.lastAttempt : text.retries}</Paragraph>
        {data.updatePaymentMethodUrl ? <LinkParagraph href={data.updatePaymentMethodUrl}>{text.updatePaymentMethod}</LinkParagraph> : null}
        <Details
          rows={[
            ...data.retryDates.map((retry, index) => ({ label: text.retry(index + 1), value: date(retry) })),
            { label: text.plan, value: data.planName },
            { label: text.amount, value: amount(data.amount) },
            ...referenceRows(view),
          ]}
        />
      </EmailLayout>
    );
  },
};

export const renewalReminder: MailTemplate<RenewalReminderData> = {
  subject: (view, data) => textOf(view).reminderSubject(view.storeName, data.planName, view.format.date(data.renewsAt)),
  Email({ view, data }) {
    const text = textOf(view);
    const { amount, date } = view.format;
    const intro = text.reminderIntro(data.planName, date(data.renewsAt), amount(data.amount));
    return (
      <EmailLayout view={view} preview={intro} heading={text.reminderHeading}>
        <Paragraph>{intro}</Paragraph>
        <Paragraph>{text.reminderActions}</Paragraph>
        {data.updatePaymentMethodUrl ? <LinkParagraph href={data.updatePaymentMethodUrl}>{text.updatePaymentMethod}</LinkParagraph> : null}
        {view.cancelUrl ? <LinkParagraph href={view.cancelUrl}>{CANCEL_LINK_TEXT[view.language]}</LinkParagraph> : null}
        <Details
          rows={[
            { label: text.plan, value: data.planName },
            { label: text.renewsOn, value: date(data.renewsAt) },
            { label: text.payment, value: text.paymentOf(data.payment, data.totalPayments) },
            { label: text.amount, value: amount(data.amount), strong: true },
            ...referenceRows(view),
          ]}
        />
      </EmailLayout>
    );
  },
};

export const trialEnding: MailTemplate<TrialEndingData> = {
  subject: (view, data) => textOf(view).trialSubject(view.storeName, data.planName, view.format.date(data.trialEnd)),
  Email({ view, data }) {
    const text = textOf(view);
    const { amount, date } = view.format;
    const intro = text.trialIntro(data.planName, date(data.trialEnd), amount(data.amount));
    return (
      <EmailLayout view={view} preview={intro} heading={text.trialHeading}>
        <Paragraph>{intro}</Paragraph>
        <Paragraph>{text.reminderActions}</Paragraph>
        <LinkParagraph href={data.updatePaymentMethodUrl}>{text.updatePaymentMethod}</LinkParagraph>
        {view.cancelUrl ? <LinkParagraph href={view.cancelUrl}>{CANCEL_LINK_TEXT[view.language]}</LinkParagraph> : null}
        <Details
          rows={[
            { label: text.plan, value: data.planName },
            { label: text.trialEnds, value: date(data.trialEnd) },
            ...(data.card === null ? [] : [{ label: text.card, value: text.cardOf(cardBrandName(data.card.brand), data.card.last4) }]),
            { label: text.firstCharge, value: amount(data.amount), strong: true },
            ...referenceRows(view),
          ]}
        />
      </EmailLayout>
    );
  },
};

export const subscriptionCanceled: MailTemplate<SubscriptionCanceledData> = {
  subject: (view, data) => textOf(view).canceledSubject(view.storeName, data.planName),
  Email({ view, data }) {
    const text = textOf(view);
    const day = view.format.date(data.canceledAt);
    const intro = { payment_failed: text.canceledAfterFailures, dispute_lost: text.canceledAfterDispute, requested: text.canceledIntro, declared: text.canceledAsDeclared }[data.reason](
      data.planName,
      day,
    );
    return (
      <EmailLayout view={view} preview={intro} heading={text.canceledHeading}>
        <Paragraph>{intro}</Paragraph>
        <Details rows={[{ label: text.plan, value: data.planName }, { label: text.canceledOn, value: day }, ...referenceRows(view)]} />
      </EmailLayout>
    );
  },
};

export const cancellationReceived: MailTemplate<CancellationReceivedData> = {
  subject: (view, data) => textOf(view).receivedSubject(view.storeName, data.planName),
  Email({ view, data }) {
    const text = textOf(view);
    const { date, dateTime } = view.format;
    const ended = data.keepUrl === null;
    const intro = ended ? text.receivedEnded(data.planName) : text.receivedScheduled(data.planName, date(data.endsAt));
    return (
      <EmailLayout view={view} preview={intro} heading={text.receivedHeading}>
        <Paragraph>{intro}</Paragraph>
        {data.type === 'extraordinary' ? <Paragraph>{text.receivedExtraordinary(view.storeName)}</Paragraph> : null}
        <Details
          rows={[
            { label: text.plan, value: data.planName },
            { label: text.received, value: dateTime(data.declaredAt) },
            { label: text.type, value: text.types[data.type] },
            ...(data.reason === null ? [] : [{ label: text.reason, value: data.reason }]),
            { label: text.endsOn, value: date(data.endsAt), strong: true },
            ...referenceRows(view),
          ]}
        />
        {data.keepUrl === null ? null : (
          <>
            <Paragraph>{text.keepIntro(date(data.endsAt))}</Paragraph>
            <LinkParagraph href={data.keepUrl}>{text.keep}</LinkParagraph>
          </>
        )}
      </EmailLayout>
    );
  },
};
