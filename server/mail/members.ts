/**
 * E-mails to a store's own people about the store's money (its bank account, its payouts): to
 * every accepted member of the roles that must hear of it, in the store's language, written in
 * the outbox in the transaction of their cause like every other e-mail.
 */
import { and, asc, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { memberships, stores, users, type MemberRole } from '@/db/schema';
import type { Scope } from '../kit/scope';
import { enqueueEmails, type EmailContent, type EmailRelated, type EmailTimes } from './outbox';

/** Writes one e-mail to each member of `roles`; returns how many were written. */
export async function enqueueMemberEmails(tx: Executor, scope: Scope, roles: readonly MemberRole[], email: { content: EmailContent; related: EmailRelated }, times: EmailTimes): Promise<number> {
  const recipients = await tx
    .select({ address: users.email, language: stores.language })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(stores, eq(stores.id, memberships.storeId))
    .where(and(eq(memberships.storeId, scope.storeId), inArray(memberships.role, [...roles]), isNotNull(memberships.acceptedAt)))
    .orderBy(asc(users.email));
  return enqueueEmails(
    tx,
    recipients.map((recipient) => ({ storeId: scope.storeId, livemode: scope.livemode, to: recipient.address, language: recipient.language, ...email, ...times })),
  );
}
