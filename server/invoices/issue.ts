/**
 * Issuing invoices and credit notes, always inside the transaction that records the payment or
 * refund they document, while it holds that payment's row lock: a payment that commits has its
 * invoice, one that rolls back has none (and gives its number back), and nothing issues twice
 * (unique order, charge and refund columns). Only money that moved is documented: callers issue
 * on a paid order, a succeeded charge, a succeeded refund; a credit note never exceeds what its
 * invoice has left uncredited.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import type { Transaction } from '@/db/client';
import { creditNotes, customers, invoices, stores, type DocumentLine, type orderLines, type orders, type refunds, type TaxBreakdownEntry } from '@/db/schema';
import type { OperatorConfig } from '../config';
import { newId } from '../ids';
import { ownedBy, type Scope } from '../kit/scope';
import { log } from '../observability/log';
import { createdEventCtes, createdEventParams, recordEvents, type EventObject, type EventTimes, type EventType } from '../webhooks/events';
import { withdrawalWaiverView } from './withdrawal-waiver';
import { splitCredit, sumBreakdown, taxBreakdownOf } from './amounts';
import { nextDocumentNumber, nextDocumentNumbers } from './numbering';
import { documentTexts } from './texts';
import { taxNoteOf, vatIdOnlyDetails } from '../vat/taxation';
import { creditNoteView, invoiceView, type CreditNoteRow, type InvoiceRow } from './view';

/** Who sells: the operator, copied onto each invoice as it stands when the invoice is issued. */
export interface IssueDeps {
  config: { operator: OperatorConfig };
}

type OrderRow = typeof orders.$inferSelect;
type OrderLineRow = typeof orderLines.$inferSelect;
type RefundRow = typeof refunds.$inferSelect;

function sellerOf(deps: IssueDeps) {
  const { operator } = deps.config;
  return { sellerName: operator.legalName, sellerAddress: operator.address, sellerVatId: operator.vatId, sellerEmail: operator.email };
}

/** The name on the buyer's customer record, for their invoice. */
export async function customerNameOf(tx: Transaction, scope: Scope, customerId: string | null): Promise<string | null> {
  if (customerId === null) return null;
  const [customer] = await tx
    .select({ name: customers.name })
    .from(customers)
    .where(and(eq(customers.id, customerId), ownedBy(customers, scope)));
  return customer?.name ?? null;
}

/**
 * A credit note just numbered, with its `credit_note.issued` event and the event's deliveries, as one
 * statement: the numbering's row lock, which every issuer of the store waits for, is then held
 * for this round trip and the commit.
 */
async function insertIssued<T extends typeof creditNotes>(
  tx: Transaction,
  table: T,
  row: PgInsertValue<T>,
  scope: Scope,
  type: Extract<EventType, 'credit_note.issued'>,
  object: EventObject,
  times: EventTimes,
): Promise<void> {
  const [newEvent, newDeliveries] = createdEventCtes(tx, type, sql``);
  await tx
    .with(newEvent, newDeliveries)
    .insert(table)
    .values(row)
    .prepare(`${type}_insert`)
    .execute({ ...scope, ...createdEventParams({ ...scope, type, object, ...times }) });
}

/** An invoice's id, for a caller that must name the invoice before issuing it. */
export function newInvoiceId(livemode: boolean): string {
  return newId('in', livemode);
}

/** An invoice as issued; its `store_name` is the store's name as the statement that wrote it read it. */
type IssuedInvoice = Omit<InvoiceRow, 'storeName'>;

/** An invoice before it is numbered and added up. */
type InvoiceValues = Omit<IssuedInvoice, 'number' | 'taxBreakdown' | 'amountSubtotal' | 'amountTax' | 'amountTotal'>;

/** An invoice's number and what it adds up to, from its lines. */
function issuedInvoice(values: InvoiceValues, number: string): IssuedInvoice {
  const taxBreakdown = taxBreakdownOf(values.lines);
  const totals = sumBreakdown(taxBreakdown);
  return { ...values, number, taxBreakdown, amountSubtotal: totals.subtotal, amountTax: totals.tax, amountTotal: totals.total };
}

/** The store's name as the statement that writes the invoice reads it: no round trip of its own while the numbering is locked. */
const storeNameOf = (storeId: string) => sql`(select ${stores.name} from ${stores} where ${stores.id} = ${storeId})`;

/** An order just paid, to invoice: its id chosen by the caller (newInvoiceId), who names it on the order and in the receipt. */
export interface InvoicedOrder {
  /** The order as paid, its `invoiceId` set. */
  order: OrderRow;
  lines: readonly OrderLineRow[];
  customerName: string | null;
  /** The subscription charge the order paid, if any. */
  subscriptionChargeId: string | null;
  /** The date or period of supply: the payment's date, or the subscription period it pays for. */
  suppliedFrom: Date;
  suppliedUntil: Date;
  times: EventTimes;
}

function orderInvoiceValues(deps: IssueDeps, { order, lines, customerName, subscriptionChargeId, suppliedFrom, suppliedUntil, times }: InvoicedOrder): InvoiceValues {
  // A name and VAT ID entered with the billing details are the ones the invoice names.
  const buyerVatId = order.customerDetails?.vat_id ?? order.buyerVatId;
  return {
    id: order.invoiceId!,
    storeId: order.storeId,
    livemode: order.livemode,
    ...sellerOf(deps),
    orderId: order.id,
    subscriptionId: order.subscriptionId,
    subscriptionChargeId,
    customerId: order.customerId,
    customerEmail: order.customerEmail!,
    customerName: order.customerDetails?.name ?? customerName,
    buyerVatId,
    // Without billing details (the product's rate), what the buyer gave is the VAT ID alone.
    customerDetails: order.customerDetails ?? vatIdOnlyDetails(buyerVatId),
    taxCountry: order.taxCountry,
    taxTreatment: order.taxTreatment,
    taxNote: taxNoteOf(order.taxTreatment, order.language),
    amountDiscount: order.amountDiscount,
    discount: order.discount,
    lines: lines.map(
      (line): DocumentLine => ({
        description: line.description,
        quantity: line.quantity,
        unit_amount: line.unitAmount,
        amount_discount: line.amountDiscount,
        amount_subtotal: line.amountSubtotal,
        tax_rate: line.taxRate ?? 0,
        amount_tax: line.amountTax,
        amount_total: line.amountTotal,
      }),
    ),
    language: order.language,
    withdrawalWaiver: withdrawalWaiverView(order),
    suppliedFrom,
    suppliedUntil,
    createdAt: times.now,
  };
}

/**
 * The invoices of orders just paid, in the settling transaction (each order's payment locked):
 * their lines as sold, the buyer as they paid. Numbered per store and environment in one
 * statement each (in a fixed order, so two settling transactions never wait on each other in a
 * cycle), written in one, with their events in one.
 */
export async function issueOrderInvoices(tx: Transaction, deps: IssueDeps, paid: readonly InvoicedOrder[]): Promise<IssuedInvoice[]> {
  if (paid.length === 0) return [];
  const values = paid.map((item) => orderInvoiceValues(deps, item));
  const byScope = new Map<string, InvoiceValues[]>();
  for (const value of values) {
    const key = `${value.storeId}:${value.livemode}`;
    const group = byScope.get(key);
    if (group) group.push(value);
    else byScope.set(key, [value]);
  }
  const numbered = new Map<InvoiceValues, IssuedInvoice>();
  for (const key of [...byScope.keys()].sort()) {
    const group = byScope.get(key)!;
    const numbers = await nextDocumentNumbers(tx, 'invoice', { storeId: group[0]!.storeId, livemode: group[0]!.livemode }, group.length);
    group.forEach((value, index) => numbered.set(value, issuedInvoice(value, numbers[index]!)));
  }
  const issued = values.map((value) => numbered.get(value)!);
  await tx.insert(invoices).values(issued.map((invoice) => ({ ...invoice, storeName: storeNameOf(invoice.storeId) })));
  await recordEvents(
    tx,
    issued.map((invoice, index) => ({ storeId: invoice.storeId, livemode: invoice.livemode, type: 'invoice.issued' as const, object: invoiceView(invoice), ...paid[index]!.times })),
  );
  return issued;
}

/** A credit of `amount` against an order's invoice, split over its VAT rates as the invoice has them left. */
export interface Credit {
  invoice: InvoiceRow;
  breakdown: TaxBreakdownEntry[];
  /** The whole invoice, credited at once: its lines as they were. */
  whole: boolean;
  totals: { subtotal: number; tax: number; total: number };
}

/**
 * What a credit of `amount` against the order's invoice comes to, given the credit notes issued
 * on it so far; undefined for an order without an invoice, or beyond what is left uncredited.
 * Read under the order's row lock, so the notes counted are all there are.
 */
export async function creditOf(tx: Transaction, scope: Scope, orderId: string, amount: number): Promise<Credit | undefined> {
  const [invoice] = await tx
    .select()
    .from(invoices)
    .where(and(eq(invoices.orderId, orderId), ownedBy(invoices, scope)));
  if (!invoice) return undefined;
  const earlier = await tx.select({ taxBreakdown: creditNotes.taxBreakdown, amountTotal: creditNotes.amountTotal }).from(creditNotes).where(eq(creditNotes.invoiceId, invoice.id));
  const uncredited = invoice.amountTotal - earlier.reduce((sum, note) => sum + note.amountTotal, 0);
  if (amount > uncredited) {
    log.error({ order: orderId, invoice: invoice.id, amount }, 'credit exceeds what its invoice has left uncredited: no credit note issued');
    return undefined;
  }
  const breakdown = splitCredit(
    invoice.taxBreakdown,
    earlier.flatMap((note) => note.taxBreakdown),
    amount,
  );
  return { invoice, breakdown, whole: earlier.length === 0 && amount === invoice.amountTotal, totals: sumBreakdown(breakdown) };
}

/** What a credit note reverses: a refund that succeeded, or a dispute the store lost. */
export type CreditCause = { refund: RefundRow } | { dispute: { id: string; storeId: string; livemode: boolean; orderId: string; amount: number } };

/**
 * The credit note of a refund that just succeeded or a dispute just lost, in that transaction,
 * which holds the order's row lock (so two credits of one order split the invoice one after the
 * other). None for an order without an invoice, nor for an amount beyond what the invoice has
 * left uncredited.
 */
export async function issueCreditNote(tx: Transaction, cause: CreditCause, times: EventTimes): Promise<CreditNoteRow | undefined> {
  const source = 'refund' in cause ? cause.refund : cause.dispute;
  const scope = { storeId: source.storeId, livemode: source.livemode };
  const credit = await creditOf(tx, scope, source.orderId, source.amount);
  if (!credit) return undefined;
  const { invoice, breakdown, whole, totals } = credit;
  const texts = documentTexts(invoice.language);
  // A credit of the whole invoice credits its lines as they were; a part of it, one line per rate.
  const lines: DocumentLine[] = whole
    ? invoice.lines
    : breakdown.map((entry) => ({
        description: texts.partialCreditLine('refund' in cause ? 'refund' : 'dispute_lost', invoice.number, invoice.taxBreakdown.length > 1 ? entry.rate : null),
        quantity: 1,
        unit_amount: entry.amount_net,
        amount_discount: 0,
        amount_subtotal: entry.amount_net,
        tax_rate: entry.rate,
        amount_tax: entry.amount_tax,
        amount_total: entry.amount_net + entry.amount_tax,
      }));
  const note: CreditNoteRow = {
    id: newId('cn', source.livemode),
    ...scope,
    number: await nextDocumentNumber(tx, 'credit_note', scope),
    invoiceId: invoice.id,
    ...('refund' in cause ? { refundId: cause.refund.id, disputeId: null, reason: 'refund' as const } : { refundId: null, disputeId: cause.dispute.id, reason: 'dispute_lost' as const }),
    orderId: source.orderId,
    lines,
    taxBreakdown: breakdown,
    amountSubtotal: totals.subtotal,
    amountTax: totals.tax,
    amountTotal: totals.total,
    createdAt: times.now,
    // The buyer and the taxation as the invoice states them, whatever has changed since.
    customerDetails: invoice.customerDetails,
    taxCountry: invoice.taxCountry,
    taxTreatment: invoice.taxTreatment,
    taxNote: invoice.taxNote,
  };
  await insertIssued(tx, creditNotes, note, scope, 'credit_note.issued', creditNoteView(note), times);
  return note;
}
