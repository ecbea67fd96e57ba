import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, json, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { DOCUMENT_LANGUAGES, oneOf, timestamptz, type DocumentLanguage } from './columns';
import { stores } from './stores';

export const EMAIL_TEMPLATES = [
  'receipt',
  'payment_failed',
  'renewal_reminder',
  'refund',
  'subscription_canceled',
  'withdrawal_received',
  'bank_account_changed',
  'payout_failed',
  'dispute_created',
  'cancellation_received',
  'trial_ending',
] as const;
export type EmailTemplate = (typeof EMAIL_TEMPLATES)[number];

/** `failed`: given up after the last retry. Test-mode e-mails stay `pending` unless SMTP_SEND_TEST_MODE sends them. */
export const EMAIL_STATUSES = ['pending', 'sent', 'failed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** A file attached when the e-mail is sent or listed, rendered then from the object it names (server/mail/attachments.ts). */
export interface EmailAttachmentRef {
  kind: 'invoice' | 'credit_note';
  id: string;
}

/**
 * The customer e-mail outbox: one row per e-mail, written in the same transaction as its cause
 * (a payment, a refund, a cancellation), so a rolled back change never mails and a committed one
 * is never lost. `data` holds what the template shows, as it was at that moment; subject, text
 * and HTML are rendered from it when the e-mail is sent or listed. The send pass
 * (server/mail/delivery.ts) leases rows one at a time and retries with backoff.
 */
export const emails = pgTable(
  'emails',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    template: text('template').$type<EmailTemplate>().notNull(),
    toAddress: text('to_address').notNull(),
    language: text('language').$type<DocumentLanguage>().notNull(),
    data: json('data').$type<Record<string, unknown>>().notNull(),
    attachments: json('attachments').$type<EmailAttachmentRef[]>().notNull(),
    orderId: text('order_id'),
    subscriptionId: text('subscription_id'),
    invoiceId: text('invoice_id'),
    creditNoteId: text('credit_note_id'),
    payoutId: text('payout_id'),
    disputeId: text('dispute_id'),
    /** Set for e-mails a background pass writes (renewal reminders): a second pass writes nothing. */
    dedupeKey: text('dedupe_key'),
    status: text('status').$type<EmailStatus>().notNull(),
    /** Send attempts made so far. */
    attempts: integer('attempts').notNull().default(0),
    /** Wall-clock time of the next attempt while pending. */
    nextAttemptAt: timestamptz('next_attempt_at').notNull(),
    lastError: text('last_error'),
    sentAt: timestamptz('sent_at'),
    /** Until when a send pass holds this e-mail (server/kit/lease.ts); null or past: free. */
    leasedUntil: timestamptz('leased_until'),
    /** The store's clock (its test clock in test mode): the e-mail's `created`. */
    createdAt: timestamptz('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('emails_dedupe_unique').on(t.dedupeKey).where(sql`${t.dedupeKey} is not null`),
    // GET /test_helpers/emails, newest first, unfiltered and by recipient.
    index('emails_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('emails_to_list_idx').on(t.storeId, t.livemode, sql`lower(${t.toAddress})`, t.createdAt.desc(), t.id.desc()),
    // The send pass: due e-mails of live mode (and of test mode with SMTP_SEND_TEST_MODE), oldest due first.
    index('emails_due_idx').on(t.livemode, t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    check('emails_template_check', oneOf(t.template, EMAIL_TEMPLATES)),
    check('emails_status_check', oneOf(t.status, EMAIL_STATUSES)),
    check('emails_language_check', oneOf(t.language, DOCUMENT_LANGUAGES)),
  ],
);
