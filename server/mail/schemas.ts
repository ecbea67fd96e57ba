/** The public contract of the test-mode outbox: the e-mails a store's test mode wrote, to its customers and to its owners. */
import { z } from 'zod';
import { DOCUMENT_LANGUAGES, EMAIL_TEMPLATES } from '@/db/schema';
import { EXAMPLE } from '../kit/examples';
import { createdRangeFields, emailFilter, listSchema, pageFields } from '../kit/list';

export const emailSchema = z
  .object({
    id: z.string().describe('`em_test_…`; also the left part of the `Message-ID` it is sent with.'),
    object: z.literal('email'),
    template: z
      .enum(EMAIL_TEMPLATES)
      .describe(
        'What the e-mail is: to the customer, `receipt` (a paid order or subscription charge), `payment_failed` (a declined renewal, with the retry dates), `renewal_reminder` (7 days before a renewal), `refund`, `subscription_canceled`, `withdrawal_received`; to the store’s owners, `bank_account_changed` (a bank account saved in the dashboard) and `payout_failed` (the bank returned a payout).',
      ),
    to: z.string().describe("The customer's address, or an owner's for the e-mails to the store's owners."),
    subject: z.string(),
    language: z.enum(DOCUMENT_LANGUAGES).describe("The customer's language, from the hosted page they paid on (its Accept-Language); the store's language (Settings) for the e-mails to its owners."),
    text: z.string().describe('The plain-text part.'),
    html: z.string().describe('The HTML part.'),
    attachments: z
      .array(z.object({ filename: z.string(), content_type: z.string(), size: z.number().int().describe('Bytes.') }))
      .describe('Files sent with it: the invoice of a receipt, the credit note of a refund.'),
    related: z
      .object({
        order_id: z.string().nullable(),
        subscription_id: z.string().nullable(),
        invoice_id: z.string().nullable(),
        credit_note_id: z.string().nullable(),
        payout_id: z.string().nullable(),
        dispute_id: z.string().nullable(),
      })
      .describe('The objects the e-mail is about.'),
    created: z.number().int().describe('When its cause happened, on the store’s test clock.'),
  })
  .meta({
    id: 'Email',
    examples: [
      {
        id: EXAMPLE.emailId,
        object: 'email',
        template: 'receipt',
        to: EXAMPLE.customerEmail,
        subject: `Your receipt from Acme Books, order ${EXAMPLE.orderId}`,
        language: 'en',
        text: `Thank you for your order ${EXAMPLE.orderId}.\n\nEbook: Payments in practice × 1   €19.99\n…`,
        html: '<!DOCTYPE html><html dir="ltr" lang="en">…</html>',
        attachments: [{ filename: `${EXAMPLE.invoiceNumber}.pdf`, content_type: 'application/pdf', size: 14417 }],
        related: { order_id: EXAMPLE.orderId, subscription_id: null, invoice_id: EXAMPLE.invoiceId, credit_note_id: null, payout_id: null, dispute_id: null },
        created: EXAMPLE.created + 9,
      },
    ],
  });
export type EmailView = z.infer<typeof emailSchema>;

/** The list query; unknown parameters are refused. */
export const listEmailsInput = z.strictObject({
  ...pageFields,
  to: emailFilter('Only e-mails to this address, compared case-insensitively.'),
  template: z.enum(EMAIL_TEMPLATES).optional().describe('Only e-mails of this template.'),
  ...createdRangeFields,
});
export type ListEmailsQuery = z.infer<typeof listEmailsInput>;

export const emailListSchema = listSchema(emailSchema, '/api/v1/test_helpers/emails', 'EmailList');
export type EmailList = z.infer<typeof emailListSchema>;
