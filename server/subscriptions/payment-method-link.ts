/**
 * The signed link to the page where a customer gives a new card for one subscription:
 * `/payment-method/<sub id>?expires=&signature=`, reusable for 7 days on the store's clock.
 * Handed out by the API, the portal and the e-mails that ask for a working card.
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { subscriptions } from '@/db/schema';
import { epochSeconds, type Clock } from '../clock';
import type { Config } from '../config';
import { ApiError, resourceMissing } from '../errors';
import { checkLink, signedLink, signingSecret, type LinkCheck } from '../kit/links';
import { ownedBy, type Scope } from '../kit/scope';
import { CANCELLABLE_STATUSES } from './cancellation';

export const PAYMENT_METHOD_LINK_DAYS = 7;

type LinkConfig = Pick<Config, 'publicBaseUrl' | 'authSecret'>;

/** Statuses whose card can be replaced: those that will still be charged. */
export const CARD_UPDATABLE_STATUSES = CANCELLABLE_STATUSES;

export interface PaymentMethodLink {
  url: string;
  expires_at: number;
}

/** A fresh link valid for 7 days from `now` (the subscription's store clock). */
export function paymentMethodLink(config: LinkConfig, subscriptionId: string, now: Date): PaymentMethodLink {
  const expires = epochSeconds(now) + PAYMENT_METHOD_LINK_DAYS * 86_400;
  return { url: signedLink(config.publicBaseUrl, signingSecret(config), 'payment_method', subscriptionId, expires), expires_at: expires };
}

export function checkPaymentMethodLink(config: LinkConfig, subscriptionId: string, expires: string | undefined, signature: string | undefined, nowSeconds: number): LinkCheck {
  return checkLink(signingSecret(config), 'payment_method', subscriptionId, expires, signature, nowSeconds);
}

/** POST /subscriptions/{id}/update_payment_method_link: 409 `subscription_not_active` for a subscription that is not charged any more (or not yet). */
export async function createPaymentMethodLink(deps: { db: Database; clock: Clock; config: LinkConfig }, scope: Scope, id: string): Promise<PaymentMethodLink> {
  const [row] = await deps.db
    .select({ status: subscriptions.status })
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), ownedBy(subscriptions, scope)))
    .limit(1);
  if (!row) throw resourceMissing('subscription', id);
  if (!(CARD_UPDATABLE_STATUSES as readonly string[]).includes(row.status)) {
    throw new ApiError('subscription_not_active', `This subscription is ${row.status}: only an active or past-due subscription takes a new card.`);
  }
  return paymentMethodLink(deps.config, id, deps.clock.now());
}
