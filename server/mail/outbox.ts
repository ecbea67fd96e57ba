/**
 * Writing customer e-mails to the outbox (the `emails` table), always inside the transaction of
 * their cause: a payment that rolls back mails nothing, one that commits is mailed at least once
 * by the send pass (./delivery.ts). What a template shows is stored with the row, as it was at
 * that moment; subject, text and HTML are rendered from it when the e-mail is sent or listed.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { emails, orders, type CancellationType, type DisputeReason, type DocumentLanguage, type EmailAttachmentRef, type EmailTemplate, type PayoutFailureReason } from '@/db/schema';
import { epochSeconds } from '../clock';
import { newId } from '../ids';
import { ownedBy, type Scope } from '../kit/scope';

/** Times are epoch seconds on the store's clock; amounts are cents. */
export interface Card {
  brand: string;
  last4: string;
}

export interface OrderReceiptData {
  kind: 'order';
  /** Each line's amount before tax and after its discount: the lines add up to `amountSubtotal`. */
  lines: { description: string; quantity: number; amountSubtotal: number; amountDiscount?: number }[];
  /** The discount taken off the lines (absent in receipts written before discounts existed). */
  discount?: { label: string; amount: number } | null;
  amountSubtotal: number;
  amountTax: number;
  amountTotal: number;
  paidAt: number;
  card: Card | null;
}

export interface SubscriptionReceiptData {
  kind: 'subscription';
  planName: string;
  amount: number;
  /** Which payment of the schedule this was, from 1; null for the charge of a plan change (outside the schedule). */
  payment: number | null;
  totalPayments: number;
  periodStart: number;
  periodEnd: number;
  paidAt: number;
  card: Card | null;
}

export interface PaymentFailedData {
  planName: string;
  amount: number;
  failedAt: number;
  /** When the charge is tried again; empty after the last attempt. */
  retryDates: number[];
  /** The last attempt failed: the subscription is canceled. */
  canceled: boolean;
  /**
   * The signed link to give another card, made when the e-mail was written so every send shows the
   * same one; absent after the last attempt (and in e-mails written before the link existed).
   */
  updatePaymentMethodUrl?: string;
}

export interface RenewalReminderData {
  planName: string;
  amount: number;
  renewsAt: number;
  payment: number;
  totalPayments: number;
  /** As in PaymentFailedData; absent in reminders written before the link existed. */
  updatePaymentMethodUrl?: string;
}

export interface TrialEndingData {
  planName: string;
  /** Epoch seconds: when the trial ends and the first charge is made. */
  trialEnd: number;
  /** The first charge: the plan's amount less the discount that applies to it. */
  amount: number;
  card: { brand: string; last4: string } | null;
  updatePaymentMethodUrl: string;
}

export interface RefundData {
  refundId: string;
  amount: number;
  orderTotal: number;
  /** Refunded of the order so far, this refund included. */
  refundedTotal: number;
  refundedAt: number;
}

export interface SubscriptionCanceledData {
  planName: string;
  canceledAt: number;
  /**
   * `payment_failed`: every retry of a renewal was declined; `requested`: the merchant canceled it;
   * `dispute_lost`: a payment of it was reversed; `declared`: the end the customer declared was reached.
   */
  reason: 'requested' | 'payment_failed' | 'dispute_lost' | 'declared';
}

/** The confirmation of a cancellation declared on the cancel page, one per subscription it matched. */
export interface CancellationReceivedData {
  planName: string;
  /** When it was received (store clock). */
  declaredAt: number;
  type: CancellationType;
  reason: string | null;
  /** When the subscription ends: the end of its period, or the declaration itself for one already past due. */
  endsAt: number;
  /** The signed link that undoes the scheduled end, valid until `endsAt`; null when it ended at once. */
  keepUrl: string | null;
}

export interface WithdrawalReceivedData {
  requestedAt: number;
  refundDueBy: number;
  reason: string | null;
}

/** To the store's owners: a save of a bank account, what it changed and when payouts may follow. */
export interface BankAccountChangedData {
  ibanLast4: string;
  accountHolder: string;
  ibanChanged: boolean;
  holderChanged: boolean;
  savedAt: number;
  /** The end of the wait after a change of IBAN or holder; the save itself when that has passed. */
  payoutsResumeAt: number;
}

/** To the store's owners: the bank returned a payout, its amount back on the balance. */
export interface PayoutFailedData {
  payoutId: string;
  amount: number;
  failureReason: PayoutFailureReason;
  failedAt: number;
  ibanLast4: string;
  accountHolder: string;
}

/** To the store's owners and admins: a cardholder disputed a payment, and until when to answer. */
export interface DisputeCreatedData {
  disputeId: string;
  orderId: string;
  amount: number;
  fee: number;
  reason: DisputeReason;
  evidenceDueBy: number;
}

/** Each template with what it shows. */
export type EmailContent =
  | { template: 'receipt'; data: OrderReceiptData | SubscriptionReceiptData }
  | { template: 'payment_failed'; data: PaymentFailedData }
  | { template: 'renewal_reminder'; data: RenewalReminderData }
  | { template: 'trial_ending'; data: TrialEndingData }
  | { template: 'refund'; data: RefundData }
  | { template: 'subscription_canceled'; data: SubscriptionCanceledData }
  | { template: 'withdrawal_received'; data: WithdrawalReceivedData }
  | { template: 'bank_account_changed'; data: BankAccountChangedData }
  | { template: 'payout_failed'; data: PayoutFailedData }
  | { template: 'dispute_created'; data: DisputeCreatedData }
  | { template: 'cancellation_received'; data: CancellationReceivedData };

/** The templates written to a customer; the others go to the store's own members (./members.ts). */
export const CUSTOMER_TEMPLATES = [
  'receipt',
  'payment_failed',
  'renewal_reminder',
  'trial_ending',
  'refund',
  'subscription_canceled',
  'withdrawal_received',
  'cancellation_received',
] as const satisfies readonly EmailTemplate[];

/** The objects an e-mail is about (the API view's `related`). */
export interface EmailRelated {
  orderId?: string;
  subscriptionId?: string;
  invoiceId?: string;
  creditNoteId?: string;
  payoutId?: string;
  disputeId?: string;
}

export interface EmailToWrite extends Scope {
  to: string;
  language: DocumentLanguage;
  content: EmailContent;
  related: EmailRelated;
  attachments?: EmailAttachmentRef[];
  /** An e-mail that must be written once however often its cause is seen (a reminder per period). */
  dedupeKey?: string;
  /** The store's clock: the e-mail's `created`. */
  now: Date;
  /** Wall clock: when its first send falls due. */
  wallNow: Date;
}

export type EmailTimes = Pick<EmailToWrite, 'now' | 'wallNow'>;

/** Writes one e-mail in the caller's transaction; false when its dedupe key was written before. */
export async function enqueueEmail(tx: Executor, email: EmailToWrite): Promise<boolean> {
  return (await enqueueEmails(tx, [email])) > 0;
}

/** enqueueEmail for several e-mails in one statement; returns how many were written. */
export async function enqueueEmails(tx: Executor, toWrite: readonly EmailToWrite[]): Promise<number> {
  if (toWrite.length === 0) return 0;
  const inserted = await tx
    .insert(emails)
    .values(
      toWrite.map((email) => ({
        id: newId('em', email.livemode),
        storeId: email.storeId,
        livemode: email.livemode,
        template: email.content.template,
        toAddress: email.to,
        language: email.language,
        data: email.content.data as unknown as Record<string, unknown>,
        attachments: email.attachments ?? [],
        orderId: email.related.orderId ?? null,
        subscriptionId: email.related.subscriptionId ?? null,
        invoiceId: email.related.invoiceId ?? null,
        creditNoteId: email.related.creditNoteId ?? null,
        payoutId: email.related.payoutId ?? null,
        disputeId: email.related.disputeId ?? null,
        dedupeKey: email.dedupeKey ?? null,
        status: 'pending' as const,
        nextAttemptAt: email.wallNow,
        createdAt: email.now,
      })),
    )
    .onConflictDoNothing()
    .returning({ id: emails.id });
  return inserted.length;
}

/** What order e-mails need of the order row. */
type MailedOrder = Scope & { id: string; customerEmail: string; language: DocumentLanguage };

/** An e-mail about an order, to its customer; `document` (its invoice or a credit note) is named and attached. */
function enqueueOrderEmail(tx: Executor, order: MailedOrder, content: EmailContent, times: EmailTimes, document?: EmailAttachmentRef): Promise<boolean> {
  return enqueueEmail(tx, orderEmail(order, content, times, document));
}

function orderEmail(order: MailedOrder, content: EmailContent, times: EmailTimes, document?: EmailAttachmentRef): EmailToWrite {
  return {
    storeId: order.storeId,
    livemode: order.livemode,
    to: order.customerEmail,
    language: order.language,
    content,
    related: { orderId: order.id, invoiceId: document?.kind === 'invoice' ? document.id : undefined, creditNoteId: document?.kind === 'credit_note' ? document.id : undefined },
    attachments: document ? [document] : [],
    ...times,
  };
}

/** The receipt of a paid order; with `invoiceId` the invoice is named and attached. */
export function orderReceipt(order: MailedOrder, data: Omit<OrderReceiptData, 'kind' | 'paidAt'>, times: EmailTimes, invoiceId?: string): EmailToWrite {
  const content: EmailContent = { template: 'receipt', data: { kind: 'order', ...data, paidAt: epochSeconds(times.now) } };
  return orderEmail(order, content, times, invoiceId ? { kind: 'invoice', id: invoiceId } : undefined);
}

/** The refund of an order; with `creditNoteId` the credit note is named and attached. */
export function enqueueRefundEmail(tx: Executor, order: MailedOrder, data: Omit<RefundData, 'refundedAt'>, times: EmailTimes, creditNoteId?: string): Promise<boolean> {
  const content: EmailContent = { template: 'refund', data: { ...data, refundedAt: epochSeconds(times.now) } };
  return enqueueOrderEmail(tx, order, content, times, creditNoteId ? { kind: 'credit_note', id: creditNoteId } : undefined);
}

/** What subscription e-mails need of the subscription row. */
export interface MailedSubscription extends Scope {
  id: string;
  customerEmail: string;
  language: DocumentLanguage;
}

/** An e-mail about a subscription, to its customer; a receipt names and attaches `invoiceId` when given. */
export function subscriptionEmail(
  subscription: MailedSubscription,
  content: Extract<EmailContent, { template: 'receipt' | 'payment_failed' | 'renewal_reminder' | 'trial_ending' | 'subscription_canceled' | 'cancellation_received' }>,
  times: EmailTimes,
  options: { dedupeKey?: string; invoiceId?: string } = {},
): EmailToWrite {
  return {
    storeId: subscription.storeId,
    livemode: subscription.livemode,
    to: subscription.customerEmail,
    language: subscription.language,
    content,
    related: { subscriptionId: subscription.id, invoiceId: options.invoiceId },
    attachments: options.invoiceId ? [{ kind: 'invoice', id: options.invoiceId }] : [],
    dedupeKey: options.dedupeKey,
    ...times,
  };
}

/** Writes subscriptionEmail. */
export function enqueueSubscriptionEmail(tx: Executor, ...email: Parameters<typeof subscriptionEmail>): Promise<boolean> {
  return enqueueEmail(tx, subscriptionEmail(...email));
}

/**
 * The receipt of a subscription's charge (the first or a renewal), once the subscription has moved
 * to the period it paid: its order's invoice named and attached. It stays about the subscription
 * (no order number among its rows), as subscription receipts always read.
 */
export function subscriptionReceipt(
  subscription: MailedSubscription & { planName: string; totalPayments: number; currentPeriodStart: Date; currentPeriodEnd: Date },
  charge: { payment: number | null; amount: number; card: Card | null },
  times: EmailTimes,
  invoiceId: string,
): EmailToWrite {
  return subscriptionEmail(
    subscription,
    {
      template: 'receipt',
      data: {
        kind: 'subscription',
        planName: subscription.planName,
        amount: charge.amount,
        payment: charge.payment,
        totalPayments: subscription.totalPayments,
        periodStart: epochSeconds(subscription.currentPeriodStart),
        periodEnd: epochSeconds(subscription.currentPeriodEnd),
        paidAt: epochSeconds(times.now),
        card: charge.card,
      },
    },
    times,
    { invoiceId },
  );
}

export interface WithdrawalReceived extends Scope {
  orderId: string;
  requestedAt: Date;
  refundDueBy: Date;
  reason: string | null;
}

/**
 * The confirmation of a withdrawal from an order, to the order's customer in their language:
 * called in the transaction that records the request. False when the order has no e-mail
 * address (nothing is written).
 */
export async function enqueueWithdrawalReceived(tx: Executor, withdrawal: WithdrawalReceived, times: EmailTimes): Promise<boolean> {
  const [order] = await tx
    .select({ customerEmail: orders.customerEmail, language: orders.language })
    .from(orders)
    .where(and(eq(orders.id, withdrawal.orderId), ownedBy(orders, withdrawal)));
  if (!order?.customerEmail) return false;
  const mailed = { storeId: withdrawal.storeId, livemode: withdrawal.livemode, id: withdrawal.orderId, customerEmail: order.customerEmail, language: order.language };
  const data = { requestedAt: epochSeconds(withdrawal.requestedAt), refundDueBy: epochSeconds(withdrawal.refundDueBy), reason: withdrawal.reason };
  return enqueueOrderEmail(tx, mailed, { template: 'withdrawal_received', data }, times);
}
