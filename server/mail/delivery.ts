/**
 * The send pass: due e-mails of the outbox go out by SMTP, one at a time, each under its own
 * lease (server/kit/lease.ts), so two processes never send one e-mail at once. Delivery is at
 * least once: a process that dies after the SMTP server took the message but before the row was
 * marked leaves the lease to expire, and the e-mail is sent again with the same `Message-ID`
 * (derived from its id), by which a mailbox tells the repeat. A failed attempt is retried with
 * growing delays, then given up (`failed`). All of it runs outside any request or payment
 * transaction, with bounded SMTP timeouts: a refusing or hanging server delays only e-mail.
 */
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { emails, stores } from '@/db/schema';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { forEachLeased } from '../kit/lease';
import { errorField, log } from '../observability/log';
import { renderAttachments } from './attachments';
import { renderEmail } from './renderer';
import { sendMail, smtpConfigured, SMTP_TIMEOUT_MS } from './smtp';

/** Retries after 1 min, 5 min, 15 min, 1 h, 3 h, 6 h, 12 h and 24 h; then the e-mail is given up. */
export const RETRY_DELAYS_SECONDS = [60, 5 * 60, 15 * 60, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** E-mails one pass sends at most. */
const PASS_LIMIT = 50;

type EmailRow = typeof emails.$inferSelect;

export interface MailDeliveryDeps {
  db: Database;
  /** Wall clock: sends are scheduled in real time. */
  clock: Clock;
  config: Pick<Config, 'smtpUrl' | 'emailFrom' | 'smtpSendTestMode' | 'operator' | 'publicBaseUrl' | 'backgroundLeaseMs'>;
  /** Each SMTP timeout (connecting, greeting, silence); SMTP_TIMEOUT_MS by default. */
  smtpTimeoutMs?: number;
}

/** `<em_live_…@host>`: the same on every attempt of one e-mail. */
export function messageIdOf(emailId: string, publicBaseUrl: string): string {
  return `<${emailId}@${new URL(publicBaseUrl).hostname}>`;
}

/** One attempt; throws what the SMTP server or the rendering said. */
async function sendEmail(deps: MailDeliveryDeps & { config: { smtpUrl: string } }, row: EmailRow): Promise<void> {
  const [store] = await deps.db.select({ name: stores.name }).from(stores).where(eq(stores.id, row.storeId));
  const files = await renderAttachments(deps.db, row);
  const rendered = await renderEmail(row, { storeName: store!.name, config: deps.config, attachments: files.map((file) => file.filename) });
  await sendMail(
    deps.config,
    {
      to: row.toAddress,
      ...rendered,
      messageId: messageIdOf(row.id, deps.config.publicBaseUrl),
      replyTo: deps.config.operator.email,
      language: row.language,
      attachments: files,
    },
    deps.smtpTimeoutMs ?? SMTP_TIMEOUT_MS,
  );
}

async function attempt(deps: MailDeliveryDeps & { config: { smtpUrl: string } }, row: EmailRow): Promise<boolean> {
  const attempts = row.attempts + 1;
  try {
    await sendEmail(deps, row);
  } catch (error) {
    const gaveUp = attempts >= MAX_ATTEMPTS;
    const message = errorField(error).message.slice(0, 1000);
    const retryAt = new Date(deps.clock.now().getTime() + RETRY_DELAYS_SECONDS[Math.min(attempts, RETRY_DELAYS_SECONDS.length) - 1]! * 1000);
    await deps.db
      .update(emails)
      .set({ attempts, lastError: message, ...(gaveUp ? { status: 'failed' as const } : { nextAttemptAt: retryAt }) })
      .where(eq(emails.id, row.id));
    // The id only: the address is the customer's.
    log.error(`e-mail ${row.id} (${row.template}) not sent, attempt ${attempts} of ${MAX_ATTEMPTS}${gaveUp ? ', given up' : ''}: ${message}`);
    return false;
  }
  await deps.db.update(emails).set({ status: 'sent', attempts, lastError: null, sentAt: deps.clock.now() }).where(eq(emails.id, row.id));
  return true;
}

/**
 * Sends the e-mails that are due, oldest due first: live mode's, and test mode's too with
 * SMTP_SEND_TEST_MODE (otherwise those stay in the store's outbox). Nothing without SMTP_URL.
 * Returns how many were sent.
 */
export async function sendDueEmails(deps: MailDeliveryDeps): Promise<number> {
  const { config } = deps;
  if (!smtpConfigured(config)) return 0;
  return forEachLeased(
    deps.db,
    emails,
    {
      where: and(eq(emails.status, 'pending'), inArray(emails.livemode, config.smtpSendTestMode ? [true, false] : [true]), lte(emails.nextAttemptAt, deps.clock.now())),
      orderBy: [asc(emails.nextAttemptAt), asc(emails.id)],
      limit: PASS_LIMIT,
      now: () => deps.clock.now(),
      leaseMs: config.backgroundLeaseMs,
    },
    (row) => attempt({ ...deps, config }, row),
  );
}
