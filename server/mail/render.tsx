/**
 * An outbox row as the customer reads it: subject, HTML (react-email) and the text part derived
 * from that HTML, so the two never say different things. Rendered when the e-mail is sent or
 * listed, from what the row stored, the store's name and the operator's configuration.
 */
import { render, toPlainText } from '@react-email/render';
import type { emails, EmailTemplate } from '@/db/schema';
import type { Config } from '../config';
import { cancelPageUrl } from '../kit/hosted-page/cancel-link';
import { formattersFor } from '../kit/locale';
import type { EmailContent } from './outbox';
import type { MailView } from './templates/layout';
import { refund, withdrawalReceived } from './templates/order';
import { disputeCreated } from './templates/disputes';
import { bankAccountChanged, payoutFailed } from './templates/payouts';
import { receipt } from './templates/receipt';
import { cancellationReceived, paymentFailed, renewalReminder, subscriptionCanceled, trialEnding } from './templates/subscription';
import type { MailTemplate } from './templates/template';

const TEMPLATES: { [T in EmailTemplate]: MailTemplate<Extract<EmailContent, { template: T }>['data']> } = {
  receipt,
  payment_failed: paymentFailed,
  renewal_reminder: renewalReminder,
  trial_ending: trialEnding,
  refund,
  subscription_canceled: subscriptionCanceled,
  withdrawal_received: withdrawalReceived,
  bank_account_changed: bankAccountChanged,
  payout_failed: payoutFailed,
  dispute_created: disputeCreated,
  cancellation_received: cancellationReceived,
};

/** Headings as written (not upper-cased), links as "text url", the detail tables as aligned columns. */
const TEXT_OPTIONS = {
  selectors: [
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'table.details', format: 'dataTable', options: { maxColumnWidth: 80, uppercaseHeaderCells: false } },
  ],
};

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

export type RenderableEmail = Pick<typeof emails.$inferSelect, 'livemode' | 'template' | 'language' | 'data' | 'orderId' | 'subscriptionId'>;

export interface RenderContext {
  storeName: string;
  config: Pick<Config, 'operator' | 'publicBaseUrl'>;
  /** File names of the attachments that go with it. */
  attachments: string[];
}

function mailView(email: RenderableEmail, context: RenderContext): MailView {
  return {
    language: email.language,
    format: formattersFor(email.language),
    storeName: context.storeName,
    operator: context.config.operator,
    withdrawUrl: `${context.config.publicBaseUrl}/withdraw`,
    cancelUrl: email.subscriptionId ? cancelPageUrl({ subscriptionId: email.subscriptionId, language: email.language, origin: context.config.publicBaseUrl }) : null,
    dashboardUrl: `${context.config.publicBaseUrl}/dashboard${email.livemode ? '' : '/test'}`,
    orderId: email.orderId,
    subscriptionId: email.subscriptionId,
    attachments: context.attachments,
  };
}

// The row's data was written for its template (./outbox.ts).
const templateOf = (email: RenderableEmail) => TEMPLATES[email.template] as MailTemplate<unknown>;

export async function renderEmail(email: RenderableEmail, context: RenderContext): Promise<RenderedEmail> {
  const view = mailView(email, context);
  const template = templateOf(email);
  const html = await render(<template.Email view={view} data={email.data} />);
  return { subject: template.subject(view, email.data), text: toPlainText(html, TEXT_OPTIONS), html };
}

/** The subject line alone, as renderEmail would give it (no body is rendered). */
export function renderEmailSubject(email: RenderableEmail, context: Omit<RenderContext, 'attachments'>): string {
  return templateOf(email).subject(mailView(email, { ...context, attachments: [] }), email.data);
}
