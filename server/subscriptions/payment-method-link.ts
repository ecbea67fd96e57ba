/**
 * POST /subscriptions/{id}/update_payment_method_link: the signed link to the page where a
 * customer gives a new card for one subscription (made in server/kit/links.ts, where the portal
 * and the e-mails make it too).
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { subscriptions } from '@/db/schema';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { ApiError, resourceMissing } from '../errors';
import { paymentMethodLink, type PaymentMethodLink } from '../kit/links';
import { ownedBy, type Scope } from '../kit/scope';
import { CANCELLABLE_STATUSES } from './cancellation';

type LinkConfig = Pick<Config, 'publicBaseUrl' | 'authSecret'>;

/** Statuses whose card can be replaced: those that will still be charged. */
export const CARD_UPDATABLE_STATUSES = CANCELLABLE_STATUSES;

/** 409 `subscription_not_active` for a subscription that is not charged any more (or not yet). */
export async function createPaymentMethodLink(deps: { db: Database; clock: Clock; config: LinkConfig }, scope: Scope, id: string): Promise<PaymentMethodLink> {
  const [row] = await deps.db
    .select({ status: subscriptions.status })
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), ownedBy(subscriptions, scope)))
    .limit(1);
  if (!row) throw resourceMissing('subscription', id);
  if (!(CARD_UPDATABLE_STATUSES as readonly string[]).includes(row.status)) {
    throw new ApiError('subscription_not_active', `This subscription is ${row.status}: only a trialing, active or past-due subscription takes a new card.`);
  }
  return paymentMethodLink(deps.config, id, deps.clock.now());
}
