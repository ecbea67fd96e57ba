/**
 * Writing the ledger: each cause's entries in the transaction of its cause, in one statement,
 * in the order they are listed here (a list, newest first, then reads them backwards). Only money
 * that moved is written: callers record a paid order, a succeeded refund, a dispute opened or won,
 * an operator's adjustment. Entries are never changed; the unique (source, type) of an order's or
 * refund's entries, and (source, description) of a dispute's, make a second write of one cause
 * fail with its transaction.
 */
import type { Executor } from '@/db/client';
import { balanceTransactions } from '@/db/schema';
import type { FeeRates } from '../config';
import { formatEuros, formatFeePercent } from '../kit/fees';
import { newId } from '../ids';

export type BalanceTransactionRow = typeof balanceTransactions.$inferSelect;
type NewEntry = Omit<BalanceTransactionRow, 'recordedOrder'>;

const DAY_MS = 86_400_000;

/**
 * The operator's fee on a payment: the percentage of the total, rounded half up to the cent, plus
 * the fixed part, never more than what is left after VAT (so the store's net is never negative).
 */
export function platformFee(amountTotal: number, amountTax: number, rates: FeeRates): number {
  const percentPart = Math.floor((amountTotal * rates.basisPoints + 5_000) / 10_000);
  return Math.min(percentPart + rates.fixed, amountTotal - amountTax);
}

/** `Fee 5% + 0.50 EUR on <number>`: the formula, so the merchant can recompute it. */
export function feeDescription(rates: FeeRates, invoiceNumber: string): string {
  return `Fee ${formatFeePercent(rates.basisPoints)}% + ${formatEuros(rates.fixed)} EUR on ${invoiceNumber}`;
}

/** An order just paid, with the invoice that documents it and the fee rates it was paid under. */
export interface PaidOrderEntries {
  order: { id: string; storeId: string; livemode: boolean; amountTotal: number };
  invoice: { number: string; amountTax: number };
  rates: FeeRates;
  /** The store's clock at payment. */
  now: Date;
}

/** Shared by an entry of a cause: its tenancy, source and times. */
function entry(base: Pick<NewEntry, 'storeId' | 'livemode' | 'sourceType' | 'sourceId' | 'createdAt' | 'availableOn'>, type: NewEntry['type'], amount: number, description: string): NewEntry {
  return { id: newBalanceTransactionId(base.livemode), ...base, type, amount, description };
}

/** `payment`, `tax` and `fee` of each paid order, held for `holdDays`: one statement for a whole batch. */
export async function recordPaymentEntries(tx: Executor, paid: readonly PaidOrderEntries[], holdDays: number): Promise<void> {
  if (paid.length === 0) return;
  const rows = paid.flatMap(({ order, invoice, rates, now }) => {
    const base = {
      storeId: order.storeId,
      livemode: order.livemode,
      sourceType: 'order' as const,
      sourceId: order.id,
      createdAt: now,
      availableOn: new Date(now.getTime() + holdDays * DAY_MS),
    };
    return [
      entry(base, 'payment', order.amountTotal, `Payment ${invoice.number}`),
      entry(base, 'tax', -invoice.amountTax, `VAT ${invoice.number}`),
      entry(base, 'fee', -platformFee(order.amountTotal, invoice.amountTax, rates), feeDescription(rates, invoice.number)),
    ];
  });
  await tx.insert(balanceTransactions).values(rows);
}

/** A succeeded refund's `refund` and `tax`, from its credit note; available at once (the fee is not returned). */
export async function recordRefundEntries(
  tx: Executor,
  refund: { id: string; storeId: string; livemode: boolean },
  creditNote: { number: string; amountTotal: number; amountTax: number },
  now: Date,
): Promise<void> {
  const base = { storeId: refund.storeId, livemode: refund.livemode, sourceType: 'refund' as const, sourceId: refund.id, createdAt: now, availableOn: now };
  await tx.insert(balanceTransactions).values([entry(base, 'refund', -creditNote.amountTotal, `Refund ${creditNote.number}`), entry(base, 'tax', creditNote.amountTax, `VAT ${creditNote.number}`)]);
}

/** A dispute as its entries need it: the amount taken back, the VAT given back with it, the fee. */
export interface DisputeEntrySource {
  id: string;
  storeId: string;
  livemode: boolean;
  amount: number;
  amountTax: number;
  fee: number;
}

/**
 * A dispute's opening: the amount taken back, the VAT a credit note for it would carry given back
 * (the operator owes the tax authority no VAT on money the cardholder got back), and the fee; all
 * available at once, so the balance drops the moment the card network takes the money.
 */
export async function recordDisputeOpeningEntries(tx: Executor, dispute: DisputeEntrySource, now: Date): Promise<void> {
  const base = { storeId: dispute.storeId, livemode: dispute.livemode, sourceType: 'dispute' as const, sourceId: dispute.id, createdAt: now, availableOn: now };
  await tx
    .insert(balanceTransactions)
    .values([
      entry(base, 'dispute', -dispute.amount, `Dispute ${dispute.id}`),
      entry(base, 'tax', dispute.amountTax, `VAT dispute ${dispute.id}`),
      entry(base, 'dispute_fee', -dispute.fee, `Dispute fee ${dispute.id}`),
    ]);
}

/** A won dispute: the amount back, and the VAT given back at opening taken again; the fee stays. */
export async function recordDisputeWonEntries(tx: Executor, dispute: DisputeEntrySource, now: Date): Promise<void> {
  const base = { storeId: dispute.storeId, livemode: dispute.livemode, sourceType: 'dispute' as const, sourceId: dispute.id, createdAt: now, availableOn: now };
  await tx.insert(balanceTransactions).values([entry(base, 'dispute_reversal', dispute.amount, `Dispute won ${dispute.id}`), entry(base, 'tax', -dispute.amountTax, `VAT dispute won ${dispute.id}`)]);
}

/** An adjustment's id, for a caller that must name the entry before recording it (an idempotency key). */
export function newBalanceTransactionId(livemode: boolean): string {
  return newId('btx', livemode);
}

/** The operator's correction of a balance, `id` from newBalanceTransactionId: its own reason as description, available at once. */
export async function recordAdjustment(
  tx: Executor,
  scope: { storeId: string; livemode: boolean },
  adjustment: { id: string; amount: number; reason: string; now: Date },
): Promise<BalanceTransactionRow> {
  const { id, amount, reason, now } = adjustment;
  const [row] = await tx
    .insert(balanceTransactions)
    .values({ ...entry({ ...scope, sourceType: null, sourceId: null, createdAt: now, availableOn: now }, 'adjustment', amount, reason), id })
    .returning();
  return row!;
}

/** The entries a payout writes: taking its amount off the balance, and giving it back when it fails or is canceled. */
export type PayoutEntryType = Extract<BalanceTransactionRow['type'], 'payout' | 'payout_failure' | 'payout_cancel'>;

const PAYOUT_ENTRY_DESCRIPTIONS: Record<PayoutEntryType, string> = { payout: 'Payout', payout_failure: 'Payout failed', payout_cancel: 'Payout canceled' };

/** A payout's entry of `type`, available at once: − its amount for `payout`, + its amount when it is undone. */
export async function recordPayoutEntry(tx: Executor, payout: { id: string; storeId: string; livemode: boolean; amount: number }, type: PayoutEntryType, now: Date): Promise<void> {
  const base = { storeId: payout.storeId, livemode: payout.livemode, sourceType: 'payout' as const, sourceId: payout.id, createdAt: now, availableOn: now };
  const amount = type === 'payout' ? -payout.amount : payout.amount;
  await tx.insert(balanceTransactions).values(entry(base, type, amount, `${PAYOUT_ENTRY_DESCRIPTIONS[type]} ${payout.id}`));
}
