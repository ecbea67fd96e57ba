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
import { lineTaxAt, type LineAmounts } from '../kit/line-tax';
import type { RateTable } from '../kit/vat-rates';
import { buyerLineAmounts } from '../vat/taxation';
import type { SubscriptionRow } from './representation';

/**
 * What a charge takes: the amount with its VAT and rate (null where none is charged), and what was
 * taken off the plan's amount before tax: the discount, and the credit balance used (both in the
 * plan's terms: gross where its price includes VAT).
 */
export interface ChargeAmounts {
  amount: number;
  amountTax: number;
  taxRate: number | null;
  amountDiscount: number;
  amountCredit: number;
}

/** Taken off a charge before tax: the discount of the period it pays for, and the credit balance (as much as is left to pay). */
export interface ChargeReductions {
  discount: number;
  creditBalance: number;
}

const NO_REDUCTIONS: ChargeReductions = { discount: 0, creditBalance: 0 };

type TaxedPlan = Pick<SubscriptionRow, 'amount' | 'taxMode' | 'taxCountry' | 'taxTreatment' | 'taxCategory' | 'taxInclusive'>;

/** One line of a charge, taxed as the subscription's charges are (gross = the plan's terms). */
function chargeLineAmounts(plan: TaxedPlan, gross: number, rates: RateTable, date: Date): { total: number; tax: number; taxRate: number | null } {
  if (plan.taxMode !== 'buyer_country' || plan.taxCountry === null || plan.taxTreatment === null) return { total: gross, tax: 0, taxRate: null };
  const line = buyerLineAmounts({ gross, inclusive: plan.taxInclusive, category: plan.taxCategory }, { taxCountry: plan.taxCountry, treatment: plan.taxTreatment }, rates, date);
  return { total: line.total, tax: line.tax, taxRate: line.taxRate };
}

/**
 * A charge of `subscription` made on `date` (its store's clock). Where the buyer's country sets
 * the rate, the country and treatment fixed at the checkout are taxed at that day's rate: the
 * amount stays the price as set, and an exclusive price is charged with its VAT on top. The plan
 * line (less its discount) and the credit used are taxed as lines of their own, then summed; the
 * charge never goes below 0.
 */
export function chargeAmountsOf(plan: TaxedPlan, rates: RateTable, date: Date, reductions: ChargeReductions = NO_REDUCTIONS): ChargeAmounts {
  const amountDiscount = Math.min(reductions.discount, plan.amount);
  const amountCredit = Math.min(reductions.creditBalance, plan.amount - amountDiscount);
  const line = chargeLineAmounts(plan, plan.amount - amountDiscount, rates, date);
  const credit = creditLineAmounts(plan, amountCredit, line.taxRate);
  return { amount: line.total - credit.total, amountTax: line.tax - credit.tax, taxRate: line.taxRate, amountDiscount, amountCredit };
}

/** The credit line of a charge, at the plan line's rate (so a charge's stored amounts give its lines back). */
function creditLineAmounts(plan: Pick<TaxedPlan, 'taxInclusive'>, amountCredit: number, taxRate: number | null): LineAmounts {
  return lineTaxAt(amountCredit, Math.round((taxRate ?? 0) * 100), plan.taxInclusive);
}

/**
 * A prorated plan change's charge on `date`: the new plan's remaining time (`charge`, gross in the
 * plan's terms) less the old plan's unused time (`credit`), each taxed as the subscription's
 * charges are (the credit at the charge line's rate).
 */
export function planChangeAmountsOf(plan: TaxedPlan, rates: RateTable, date: Date, prorated: { charge: number; credit: number }): Pick<ChargeAmounts, 'amount' | 'amountTax' | 'taxRate'> {
  const line = chargeLineAmounts(plan, prorated.charge, rates, date);
  const credit = creditLineAmounts(plan, prorated.credit, line.taxRate);
  return { amount: line.total - credit.total, amountTax: line.tax - credit.tax, taxRate: line.taxRate };
}

/** A stored charge's amounts, as a paid charge carries them to its order. */
export function paidAmountsOf(charge: ChargeAmounts): ChargeAmounts {
  return { amount: charge.amount, amountTax: charge.amountTax, taxRate: charge.taxRate, amountDiscount: charge.amountDiscount, amountCredit: charge.amountCredit };
}

export interface PaidCharge extends ChargeAmounts {
  id: string;
  cycle: number;
  card: Card;
  gatewayPaymentId: string | null;
  /** The buyer's IP address and user agent on the hosted page: a first charge's, null for a renewal. */
  buyer: { ip: string | null; userAgent: string | null };
}

interface ChargeLine {
  description: string;
  unitAmount: number;
  amountDiscount: number;
  amountSubtotal: number;
  amountTax: number;
  amountTotal: number;
}

/**
 * The lines of a paid charge, from its stored amounts alone: the plan (its net before the discount,
 * the discount in net terms, then what is left), and the credit balance used as a negative line.
 */
function chargeLines(subscription: SubscriptionRow, charge: ChargeAmounts): ChargeLine[] {
  const texts = documentTexts(subscription.language);
  const hundredths = Math.round((charge.taxRate ?? 0) * 100);
  const inclusive = subscription.taxInclusive;
  const credit = lineTaxAt(charge.amountCredit, hundredths, inclusive);
  const planTotal = charge.amount + credit.total;
  const planTax = charge.amountTax + credit.tax;
  const planSubtotal = planTotal - planTax;
  const undiscounted = lineTaxAt(charge.amountDiscount + (inclusive ? planTotal : planSubtotal), hundredths, inclusive);
  const plan: ChargeLine = {
    description: texts.subscriptionLine(subscription.planName),
    unitAmount: undiscounted.subtotal,
    amountDiscount: undiscounted.subtotal - planSubtotal,
    amountSubtotal: planSubtotal,
    amountTax: planTax,
    amountTotal: planTotal,
  };
  if (charge.amountCredit === 0) return [plan];
  return [plan, { description: texts.creditLine, unitAmount: -credit.subtotal, amountDiscount: 0, amountSubtotal: -credit.subtotal, amountTax: -credit.tax, amountTotal: -credit.total }];
}

/** The order of `charge`, paid by `subscription` as the charge left it (its current period is what the charge paid for). */
export function chargeOrderPayment(subscription: SubscriptionRow, charge: PaidCharge, times: EventTimes): OrderPayment {
  const lines = chargeLines(subscription, charge);
  return subscriptionOrderPayment(subscription, charge, lines, {
    billingReason: charge.cycle === 1 ? 'subscription_create' : 'subscription_cycle',
    subscriptionChargeId: charge.id,
    period: { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd },
    payment: charge.cycle,
    times,
  });
}

/** A prorated plan change that took money, as its order documents it. */
export interface PaidPlanChange {
  fromPlanName: string;
  toPlanName: string;
  credit: number;
  amount: number;
  amountTax: number;
  taxRate: number | null;
  card: Card;
  gatewayPaymentId: string | null;
  /** What the charge priced: from the change to the end of the period it falls in. */
  period: { start: Date; end: Date };
}

/**
 * The order of a plan change's charge, from its stored amounts: the old plan's unused time as a
 * negative line, the new plan's remaining time (what is left once the credit is added back).
 * `subscription` is on the new plan; the receipt calls it a plan change, not a payment of the schedule.
 */
export function planChangeOrderPayment(subscription: SubscriptionRow, change: PaidPlanChange, times: EventTimes): OrderPayment {
  const texts = documentTexts(subscription.language);
  const credit = lineTaxAt(change.credit, Math.round((change.taxRate ?? 0) * 100), subscription.taxInclusive);
  const remainingTotal = change.amount + credit.total;
  const remainingTax = change.amountTax + credit.tax;
  const lines: ChargeLine[] = [
    { description: texts.unusedTimeLine(change.fromPlanName), unitAmount: -credit.subtotal, amountDiscount: 0, amountSubtotal: -credit.subtotal, amountTax: -credit.tax, amountTotal: -credit.total },
    {
      description: texts.remainingTimeLine(change.toPlanName),
      unitAmount: remainingTotal - remainingTax,
      amountDiscount: 0,
      amountSubtotal: remainingTotal - remainingTax,
      amountTax: remainingTax,
      amountTotal: remainingTotal,
    },
  ];
  return subscriptionOrderPayment(subscription, { ...change, buyer: { ip: null, userAgent: null } }, lines, {
    billingReason: 'subscription_update',
    subscriptionChargeId: null,
    period: change.period,
    payment: null,
    times,
  });
}

interface OrderOf {
  billingReason: 'subscription_create' | 'subscription_cycle' | 'subscription_update';
  subscriptionChargeId: string | null;
  /** The period the invoice supplies. */
  period: { start: Date; end: Date };
  /** The payment of the schedule the receipt names; null for a plan change's charge. */
  payment: number | null;
  times: EventTimes;
}

type OrderedCharge = Pick<PaidCharge, 'amount' | 'amountTax' | 'taxRate' | 'card' | 'gatewayPaymentId' | 'buyer'>;

function subscriptionOrderPayment(subscription: SubscriptionRow, charge: OrderedCharge, lines: ChargeLine[], of: OrderOf): OrderPayment {
  const { times } = of;
  const orderId = newId('ord', subscription.livemode);
  const invoiceId = newInvoiceId(subscription.livemode);
  const { amount, amountTax } = charge;
  const amountSubtotal = amount - amountTax;
  const amountDiscount = lines.reduce((sum, line) => sum + line.amountDiscount, 0);
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
      amountDiscount,
      discount: amountDiscount > 0 ? subscription.discount : null,
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
      billingReason: of.billingReason,
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
    lines: lines.map((line, position) => ({
      id: `${orderId}_l${position}`,
      orderId,
      position,
      productId: position === 0 ? subscription.productId : null,
      priceId: position === 0 ? subscription.priceId : null,
      quantity: 1,
      taxRate: charge.taxRate ?? 0,
      taxInclusive: amountTax > 0 && subscription.taxInclusive,
      taxCategory: subscription.taxCategory,
      hasLicense: false,
      downloadCount: 0,
      ...line,
    })),
    invoice: {
      customerName: subscription.customerName,
      subscriptionChargeId: of.subscriptionChargeId,
      suppliedFrom: of.period.start,
      suppliedUntil: of.period.end,
    },
    receipt: subscriptionReceipt({ ...subscription, currentPeriodStart: of.period.start, currentPeriodEnd: of.period.end }, { payment: of.payment, amount, card: charge.card }, times, invoiceId),
    events: [],
    times,
  };
}
