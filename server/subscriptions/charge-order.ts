/**
 * A subscription charge that took the money is an order like any sale: this shapes it for the one
 * settle seam (server/payments/pay-orders.ts), with one line for the plan and the period it pays
 * for. Subscriptions are sold without VAT calculation, so the line carries none.
 */
import type { Card } from '../mail/outbox';
import { subscriptionReceipt } from '../mail/outbox';
import { newId } from '../ids';
import { newInvoiceId } from '../invoices/issue';
import { documentTexts } from '../invoices/texts';
import type { OrderPayment } from '../payments/pay-orders';
import type { EventTimes } from '../webhooks/events';
import type { SubscriptionRow } from './representation';

export interface PaidCharge {
  id: string;
  cycle: number;
  amount: number;
  card: Card;
  gatewayPaymentId: string | null;
  /** The buyer's IP address and user agent on the hosted page: a first charge's, null for a renewal. */
  buyer: { ip: string | null; userAgent: string | null };
}

/** The order of `charge`, paid by `subscription` as the charge left it (its current period is what the charge paid for). */
export function chargeOrderPayment(subscription: SubscriptionRow, charge: PaidCharge, times: EventTimes): OrderPayment {
  const orderId = newId('ord', subscription.livemode);
  const invoiceId = newInvoiceId(subscription.livemode);
  const { amount } = charge;
  return {
    written: 'new',
    order: {
      id: orderId,
      storeId: subscription.storeId,
      livemode: subscription.livemode,
      status: 'paid',
      customerId: subscription.customerId,
      customerEmail: subscription.customerEmail,
      amountSubtotal: amount,
      amountTax: 0,
      amountTotal: amount,
      amountRefunded: 0,
      cardBrand: charge.card.brand,
      cardLast4: charge.card.last4,
      gatewayPaymentId: charge.gatewayPaymentId,
      createdAt: times.now,
      paidAt: times.now,
      language: subscription.language,
      buyerVatId: null,
      invoiceId,
      withdrawalWaiverAcceptedAt: null,
      withdrawalWaiverTextVersion: null,
      billingReason: charge.cycle === 1 ? 'subscription_create' : 'subscription_cycle',
      subscriptionId: subscription.id,
      disputeId: null,
      buyerIp: charge.buyer.ip,
      buyerUserAgent: charge.buyer.userAgent,
    },
    lines: [
      {
        id: `${orderId}_l0`,
        orderId,
        position: 0,
        productId: subscription.productId,
        priceId: subscription.priceId,
        description: documentTexts(subscription.language).subscriptionLine(subscription.planName),
        quantity: 1,
        unitAmount: amount,
        amountSubtotal: amount,
        amountTax: 0,
        amountTotal: amount,
        taxRate: 0,
        taxInclusive: false,
        hasLicense: false,
        downloadCount: 0,
      },
    ],
    invoice: {
      customerName: subscription.customerName,
      subscriptionChargeId: charge.id,
      suppliedFrom: subscription.currentPeriodStart,
      suppliedUntil: subscription.currentPeriodEnd,
    },
    receipt: subscriptionReceipt(subscription, { payment: charge.cycle, amount, card: charge.card }, times, invoiceId),
    events: [],
    times,
  };
}
