/** The test-mode outbox through the API: a store's test-mode e-mails as they read (GET /test_helpers/emails). */
import { eq, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { emails, stores } from '@/db/schema';
import { epochSeconds } from '../clock';
import type { Config } from '../config';
import { ApiError } from '../errors';
import { createdWithin, listEnvelope, listPage } from '../kit/list';
import type { Scope } from '../kit/scope';
import { renderAttachments } from './attachments';
import { renderEmail } from './renderer';
import type { EmailList, EmailView, ListEmailsQuery } from './schemas';

export interface MailReadDeps {
  db: Database;
  config: Pick<Config, 'operator' | 'publicBaseUrl'>;
}

/** An outbox row as its recipient reads it, rendered now with its attachments. */
async function emailView(deps: MailReadDeps, row: typeof emails.$inferSelect, storeName: string): Promise<EmailView> {
  const files = await renderAttachments(deps.db, row);
  const rendered = await renderEmail(row, { storeName, config: deps.config, attachments: files.map((file) => file.filename) });
  return {
    id: row.id,
    object: 'email',
    template: row.template,
    to: row.toAddress,
    subject: rendered.subject,
    language: row.language,
    text: rendered.text,
    html: rendered.html,
    attachments: files.map((file) => ({ filename: file.filename, content_type: file.contentType, size: file.content.length })),
    related: { order_id: row.orderId, subscription_id: row.subscriptionId, invoice_id: row.invoiceId, credit_note_id: row.creditNoteId, payout_id: row.payoutId, dispute_id: row.disputeId },
    created: epochSeconds(row.createdAt),
  };
}

/** GET /test_helpers/emails: newest first, filtered by recipient and template. Test mode only. */
export async function listTestEmails(deps: MailReadDeps, scope: Scope, query: ListEmailsQuery): Promise<EmailList> {
  if (scope.livemode) throw new ApiError('test_mode_only', 'The outbox of customer e-mails is a test helper: use a test secret key (sk_test_…).');
  const { rows, hasMore } = await listPage(deps.db, emails, {
    scope,
    page: query,
    kind: 'email',
    where: [
      query.to === undefined ? undefined : eq(sql`lower(${emails.toAddress})`, query.to),
      query.template === undefined ? undefined : eq(emails.template, query.template),
      ...createdWithin(emails.createdAt, query),
    ],
  });
  const [store] = await deps.db.select({ name: stores.name }).from(stores).where(eq(stores.id, scope.storeId));
  const data: EmailView[] = [];
  for (const row of rows) data.push(await emailView(deps, row, store!.name));
  return listEnvelope('/api/v1/test_helpers/emails', scope, data, hasMore);
}
