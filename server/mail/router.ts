import { createRouter, secretKeyProcedure } from '../trpc';
import { emailListSchema, listEmailsInput } from './schemas';
import { listTestEmails } from './service';

export const mailTestHelpersRouter = createRouter({
  // GET /api/v1/test_helpers/emails: the customer e-mails this store's test mode wrote, newest first.
  listEmails: secretKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/test_helpers/emails',
        tags: ['Test helpers'],
        summary: 'List test-mode e-mails',
        description:
          "The customer e-mails of this store's test mode (receipts, failed payments, renewal reminders, refunds, cancellations, withdrawals), newest first, as they read: subject, text and HTML parts, attachments. Test mode keeps them here instead of sending them (unless the operator sets SMTP_SEND_TEST_MODE). Test secret keys only.",
        protect: true,
      },
      errors: ['test_mode_only', 'resource_missing'],
    })
    .input(listEmailsInput)
    .output(emailListSchema)
    .query(({ ctx, input }) => listTestEmails(ctx, ctx.subject, input)),
});
