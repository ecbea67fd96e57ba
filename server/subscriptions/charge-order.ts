/**
 * A subscription charge that took the money is an order like any sale: this shapes it for the one
 * settle seam (server/payments/pay-orders.ts), with one line for the plan and the period it pays
 * for, taxed as the charge was (chargeAmountsOf).
 */
import type { Card } from '../mail/outbox';
import { subscriptionReceipt } from '../mail/outbox';
import { newId } from '../ids';
import { newInvoiceId } from '../invoices/issue';
import { documentTexts } from '../invoices/texts';
import type { OrderPayment } from '../payments/pay-orders';
import type { EventTimes } from '../webhooks/events';
import type { RateTable } from '../kit/vat-rates';
import { buyerLineAmounts } from '../vat/taxation';
import type { SubscriptionRow } from './representation';

/** What a charge takes: the amount with its VAT and rate (null where none is charged). */
export interface ChargeAmounts {
  amount: number;
  amountTax: number;
  taxRate: number | null;
}

/**
 * A charge of `subscription` made on `date` (its store's clock). Where the buyer's country sets
 * the rate, the country and treatment fixed at the checkout are taxed at that day's rate: the
 * amount stays the price as set, and an exclusive price is charged with its VAT on top.
 */
export function chargeAmountsOf(
  subscription: Pick<SubscriptionRow, 'amount' | 'taxMode' | 'taxCountry' | 'taxTreatment' | 'taxCategory' | 'taxInclusive'>,
  rates: RateTable,
  date: Date,
): ChargeAmounts {
  if (subscription.taxMode !== 'buyer_country' || subscription.taxCountry === null || subscription.taxTreatment === null) {
    return { amount: subscription.amount, amountTax: 0, taxRate: null };
  }
  const line = buyerLineAmounts(
    { gross: subscription.amount, inclusive: subscription.taxInclusive, category: subscription.taxCategory },
    { taxCountry: subscription.taxCountry, treatment: subscription.taxTreatment },
    rates,
    date,
  );
  return { amount: line.total, amountTax: line.tax, taxRate: line.taxRate };
}

export interface PaidCharge extends ChargeAmounts {
  id: string;
  cycle: number;
  card: Card;
  gatewayPaymentId: string | null;
  /** The buyer's IP address and user agent on the hosted page: a first charge's, null for a renewal. */
  buyer: { ip: string | null; userAgent: string | null };
}

/** The order of `charge`, paid by `subscription` as the charge left it (its current period is what the charge paid for). */
export function chargeOrderPayment(subscription: SubscriptionRow, charge: PaidCharge, times: EventTimes): OrderPayment {
  const orderId = newId('ord', subscription.livemode);
  const invoiceId = newInvoiceId(subscription.livemode);
  const { amount, amountTax } = charge;
  const amountSubtotal = amount - amountTax;
  return {
    written: 'new',
    order: {
      id: orderId,
      storeId: subscription.storeId,
      livemode: subscription.livemode,
      status: 'paid',
      customerId: subscription.customerId,
      customerEmail: subscription.customerEmail,
      amountSubtotal,
      amountTax,
      amountTotal: amount,
      amountRefunded: 0,
      cardBrand: charge.card.brand,
      cardLast4: charge.card.last4,
      gatewayPaymentId: charge.gatewayPaymentId,
      createdAt: times.now,
      paidAt: times.now,
      language: subscription.language,
      buyerVatId: subscription.customerDetails?.vat_id ?? null,
      invoiceId,
      withdrawalWaiverAcceptedAt: null,
      withdrawalWaiverTextVersion: null,
      billingReason: charge.cycle === 1 ? 'subscription_create' : 'subscription_cycle',
      subscriptionId: subscription.id,
      disputeId: null,
      buyerIp: charge.buyer.ip,
      buyerUserAgent: charge.buyer.userAgent,
      customerDetails: subscription.customerDetails,
      taxCountry: subscription.taxCountry,
      taxTreatment: subscription.taxTreatment,
      taxEvidence: subscription.taxEvidence,
      evidenceConflict: subscription.evidenceConflict,
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
        unitAmount: amountSubtotal,
        amountSubtotal,
        amountTax,
        amountTotal: amount,
        taxRate: charge.taxRate ?? 0,
        taxInclusive: amountTax > 0 && subscription.taxInclusive,
        taxCategory: subscription.taxCategory,
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
