/**
 * What the update-payment-method page shows a customer holding its signed link
 * (payment-method-link.ts): the plan, the next charge, the card on file, and for a `past_due`
 * subscription the owed charge a new card pays at once. The card update itself, which moves
 * money, is billing's (server/billing/card-update.ts).
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { paymentMethodUpdates, stores, subscriptions, type DocumentLanguage, type PaymentMethodUpdateStatus } from '@/db/schema';
import { epochSeconds, storeClock } from '../clock';
import type { Config } from '../config';
import { createHandoff } from '../kit/hosted-page/handoff';
import type { InvalidLinkNotice } from '../kit/hosted-page/invalid-link';
import type { HostedLinkParams, HostedPageDeps } from '../kit/hosted-page/request';
import { checkPaymentMethodLink, signingSecret } from '../kit/links';
import { seal, unseal } from '../kit/sealed';
import { storeLinkColumns, type StoreLinks } from '../stores/service';
import { owedChargeAmounts } from './discount';
import { CARD_UPDATABLE_STATUSES } from './payment-method-link';
import { SUBSCRIPTION_ID } from './schemas';

export interface PaymentMethodView {
  id: string;
  livemode: boolean;
  storeName: string;
  storeLinks: StoreLinks;
  /** When the page was read, on the store's clock (epoch seconds): the form's script checks expiry dates against it. */
  readAt: number;
  planName: string;
  /** Anything but `trialing`, `active` and `past_due`: no card is taken any more. */
  ended: boolean;
  /** When the next charge (or retry) is made and what it takes, on the store's clock; null once ended. */
  nextCharge: { at: number; amount: number } | null;
  card: { brand: string | null; last4: string } | null;
  /** `past_due`: the owed charge, made at once on the new card. */
  owed: number | null;
}

/** The 404 page of a link that does not verify, is past its 7 days or names no subscription, in the page's language. */
export const PAYMENT_METHOD_LINK_NOTICE: Record<DocumentLanguage, InvalidLinkNotice> = {
  en: {
    site: 'Update your payment method',
    title: 'This link is not valid',
    paragraphs: ['The link may have expired, been copied incompletely or changed. Nothing was charged.', 'Use the link in the latest e-mail about your subscription, or ask the shop for a new one.'],
  },
  de: {
    site: 'Zahlungsmethode aktualisieren',
    title: 'Dieser Link ist nicht gültig',
    paragraphs: [
      'Der Link ist vielleicht abgelaufen, unvollständig kopiert oder verändert worden. Es wurde nichts abgebucht.',
      'Verwenden Sie den Link aus der neuesten E-Mail zu Ihrem Abonnement, oder bitten Sie den Shop um einen neuen.',
    ],
    language: 'de',
  },
};

/** A link that does not verify, is past its 7 days or names no subscription is `invalid` (the 404 page). */
export type PaymentMethodPage = { state: 'invalid' } | { state: 'open'; view: PaymentMethodView };

/** What proxy.ts loaded for a GET of the page, which the page then renders. */
export const paymentMethodHandoff = createHandoff<PaymentMethodPage>('payment-method');

type PaymentMethodPageDeps = HostedPageDeps & { config: Pick<Config, 'taxRates'> };

export async function loadPaymentMethodPage(deps: PaymentMethodPageDeps, link: HostedLinkParams): Promise<PaymentMethodPage> {
  if (!SUBSCRIPTION_ID.test(link.id)) return { state: 'invalid' };
  const [row] = await deps.db
    .select({ subscription: subscriptions, storeName: stores.name, storeLinks: storeLinkColumns, offset: stores.testClockOffsetSeconds })
    .from(subscriptions)
    .innerJoin(stores, eq(stores.id, subscriptions.storeId))
    .where(eq(subscriptions.id, link.id))
    .limit(1);
  if (!row) return { state: 'invalid' };
  const { subscription } = row;
  const now = storeClock(deps.clock, { livemode: subscription.livemode, testClockOffsetSeconds: row.offset }).now();
  if (checkPaymentMethodLink(deps.config, subscription.id, link.expires, link.signature, epochSeconds(now)) !== 'valid') return { state: 'invalid' };
  const ended = !(CARD_UPDATABLE_STATUSES as readonly string[]).includes(subscription.status);
  const amount = owedChargeAmounts(subscription, deps.config.taxRates, now).amount;
  return {
    state: 'open',
    view: {
      id: subscription.id,
      livemode: subscription.livemode,
      storeName: row.storeName,
      storeLinks: row.storeLinks,
      readAt: epochSeconds(now),
      planName: subscription.planName,
      ended,
      nextCharge: ended ? null : { at: epochSeconds(subscription.nextBillingAt), amount },
      card: subscription.cardLast4 === null ? null : { brand: subscription.cardBrand, last4: subscription.cardLast4 },
      owed: subscription.status === 'past_due' ? amount : null,
    },
  };
}

/** What became of one card update, as the page after its post shows it. */
export interface CardUpdateOutcome {
  status: PaymentMethodUpdateStatus;
  failureCode: string | null;
  /** Cents charged with it (the owed charge of a `past_due` subscription); 0 for a card check. */
  amount: number;
  /** The subscription is charged to this card now (an approved card is not taken by a subscription that ended meanwhile: its money goes back). */
  adopted: boolean;
}

const OUTCOME_LABEL = 'payment method update';

/**
 * The page's query after a post names the update it made, sealed to the subscription: nobody can
 * make the page claim an update that was not made on it.
 */
export function sealCardUpdate(config: Pick<Config, 'authSecret'>, subscriptionId: string, updateId: string): string {
  return seal(signingSecret(config), OUTCOME_LABEL, subscriptionId, updateId);
}

/** The update a sealed query names, as it is now (a reload shows what the reconciler found since); undefined when it does not open. */
export async function cardUpdateOutcome(deps: { db: Database; config: Pick<Config, 'authSecret'> }, subscriptionId: string, sealed: string | undefined): Promise<CardUpdateOutcome | undefined> {
  const updateId = sealed === undefined ? undefined : unseal(signingSecret(deps.config), OUTCOME_LABEL, subscriptionId, sealed);
  if (updateId === undefined) return undefined;
  const [row] = await deps.db
    .select({
      status: paymentMethodUpdates.status,
      failureCode: paymentMethodUpdates.failureCode,
      amount: paymentMethodUpdates.amount,
      adopted: sql<boolean>`${paymentMethodUpdates.recurringId} is not null and ${paymentMethodUpdates.recurringId} = ${subscriptions.recurringId}`,
    })
    .from(paymentMethodUpdates)
    .innerJoin(subscriptions, eq(subscriptions.id, paymentMethodUpdates.subscriptionId))
    .where(and(eq(paymentMethodUpdates.id, updateId), eq(paymentMethodUpdates.subscriptionId, subscriptionId)))
    .limit(1);
  return row;
}
