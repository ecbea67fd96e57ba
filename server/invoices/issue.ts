/**
 * Issuing invoices and credit notes, always inside the transaction that records the payment or
 * refund they document, while it holds that payment's row lock: a payment that commits has its
 * invoice, one that rolls back has none (and gives its number back), and nothing issues twice
 * (unique order, charge and refund columns). Only money that moved is documented: callers issue
 * on a paid order, a succeeded charge, a succeeded refund; a credit note never exceeds what its
 * invoice has left uncredited.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import type { Transaction } from '@/db/client';
import { creditNotes, customers, invoices, orderLines, orders, stores, type DocumentLine, type refunds, type subscriptions } from '@/db/schema';
import type { OperatorConfig } from '../config';
import { newId } from '../ids';
import { ownedBy, type Scope } from '../kit/scope';
import { log } from '../observability/log';
import { createdEventCtes, createdEventParams, recordEvents, type EventObject, type EventTimes, type EventType } from '../webhooks/events';
import { withdrawalWaiverView } from '../orders/withdrawal-view';
import { splitCredit, sumBreakdown, taxBreakdownOf } from './amounts';
import { nextDocumentNumber, nextDocumentNumbers } from './numbering';
import { documentTexts } from './texts';
import { creditNoteView, invoiceView, type CreditNoteRow, type InvoiceRow } from './view';

/** Who sells: the operator, copied onto each invoice as it stands when the invoice is issued. */
export interface IssueDeps {
  config: { operator: OperatorConfig };
}

type OrderRow = typeof orders.$inferSelect;
type SubscriptionRow = typeof subscriptions.$inferSelect;
type RefundRow = typeof refunds.$inferSelect;

function sellerOf(deps: IssueDeps) {
  const { operator } = deps.config;
  return { sellerName: operator.legalName, sellerAddress: operator.address, sellerVatId: operator.vatId, sellerEmail: operator.email };
}

async function customerNameOf(tx: Transaction, scope: Scope, customerId: string | null): Promise<string | null> {
  if (customerId === null) return null;
  const [customer] = await tx.select({ name: customers.name }).from(customers).where(and(eq(customers.id, customerId), ownedBy(customers, scope)));
  return customer?.name ?? null;
}

/**
 * A document just numbered, with its `*.issued` event and the event's deliveries, as one
 * statement: the numbering's row lock, which every issuer of the store waits for, is then held
 * for this round trip and the commit.
 */
async function insertIssued<T extends typeof invoices | typeof creditNotes>(
  tx: Transaction,
  table: T,
  row: PgInsertValue<T>,
  scope: Scope,
  type: Extract<EventType, 'invoice.issued' | 'credit_note.issued'>,
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

async function insertInvoice(tx: Transaction, values: InvoiceValues, times: EventTimes): Promise<IssuedInvoice> {
  // Last, after every row lock of the payment: the sequence's lock is held only until commit.
  const invoice = issuedInvoice(values, await nextDocumentNumber(tx, 'invoice', { storeId: values.storeId, livemode: values.livemode }));
  const scope = { storeId: invoice.storeId, livemode: invoice.livemode };
  await insertIssued(tx, invoices, { ...invoice, storeName: storeNameOf(invoice.storeId) }, scope, 'invoice.issued', invoiceView(invoice), times);
  return invoice;
}

/**
 * The invoice of an order that was just paid, in the settling transaction (the order row locked
 * and already `paid`): its lines as sold, the buyer as they paid. Sets the order's `invoice_id`.
 */
export async function issueOrderInvoice(tx: Transaction, deps: IssueDeps, order: OrderRow, times: EventTimes): Promise<IssuedInvoice> {
  const scope = { storeId: order.storeId, livemode: order.livemode };
  const lines = await tx.select().from(orderLines).where(eq(orderLines.orderId, order.id)).orderBy(asc(orderLines.position));
  const invoice = await insertInvoice(
    tx,
    {
      id: newInvoiceId(order.livemode),
      ...scope,
      ...sellerOf(deps),
      orderId: order.id,
      subscriptionId: null,
      subscriptionChargeId: null,
      customerId: order.customerId,
      customerEmail: order.customerEmail!,
      customerName: await customerNameOf(tx, scope, order.customerId),
      buyerVatId: order.buyerVatId,
      lines: lines.map(
        (line): DocumentLine => ({
          description: line.description,
          quantity: line.quantity,
          unit_amount: line.unitAmount,
          amount_subtotal: line.amountSubtotal,
          tax_rate: line.taxRate ?? 0,
          amount_tax: line.amountTax,
          amount_total: line.amountTotal,
        }),
      ),
      language: order.language,
      withdrawalWaiver: withdrawalWaiverView(order),
      suppliedFrom: order.paidAt!,
      suppliedUntil: order.paidAt!,
      createdAt: times.now,
    },
    times,
  );
  await tx.update(orders).set({ invoiceId: invoice.id }).where(eq(orders.id, order.id));
  return invoice;
}

/** A subscription charge that just succeeded, to invoice. */
export interface InvoicedCharge {
  charge: { id: string; amount: number; periodStart: Date; periodEnd: Date };
  /** The subscription as the charge left it. */
  subscription: SubscriptionRow;
  times: EventTimes;
  /** Chosen by the caller, which names it in the receipt it writes before the invoice (newInvoiceId). */
  invoiceId: string;
}

function chargeInvoiceValues(deps: IssueDeps, { charge, subscription, times, invoiceId }: InvoicedCharge): InvoiceValues {
  return {
    id: invoiceId,
    storeId: subscription.storeId,
    livemode: subscription.livemode,
    ...sellerOf(deps),
    orderId: null,
    subscriptionId: subscription.id,
    subscriptionChargeId: charge.id,
    customerId: subscription.customerId,
    customerEmail: subscription.customerEmail,
    customerName: subscription.customerName,
    buyerVatId: null,
    lines: [
      {
        description: documentTexts(subscription.language).subscriptionLine(subscription.planName),
        quantity: 1,
        unit_amount: charge.amount,
        amount_subtotal: charge.amount,
        tax_rate: 0,
        amount_tax: 0,
        amount_total: charge.amount,
      },
    ],
    language: subscription.language,
    withdrawalWaiver: null,
    suppliedFrom: charge.periodStart,
    suppliedUntil: charge.periodEnd,
    createdAt: times.now,
  };
}

/**
 * The invoices of subscription charges that just succeeded, in the settling transaction (each
 * subscription row locked): one line for the period each pays for. Subscriptions are sold
 * without VAT calculation, so the line carries none. Numbered per store and environment in one
 * statement each (in a fixed order, so two settling transactions never wait on each other in a
 * cycle), written in one, with their events in one.
 */
export async function issueChargeInvoices(tx: Transaction, deps: IssueDeps, charges: readonly InvoicedCharge[]): Promise<IssuedInvoice[]> {
  if (charges.length === 0) return [];
  const values = charges.map((charge) => chargeInvoiceValues(deps, charge));
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
    issued.map((invoice, index) => ({ storeId: invoice.storeId, livemode: invoice.livemode, type: 'invoice.issued' as const, object: invoiceView(invoice), ...charges[index]!.times })),
  );
  return issued;
}

/**
 * The credit note of a refund that just succeeded, in the settling transaction, which holds the
 * order's row lock (so two refunds of one order split the invoice one after the other). None for
 * an order without an invoice, nor for an amount beyond what the invoice has left uncredited.
 * Sets the refund's `credit_note_id`.
 */
export async function issueCreditNote(tx: Transaction, refund: RefundRow, times: EventTimes): Promise<CreditNoteRow | undefined> {
  const scope = { storeId: refund.storeId, livemode: refund.livemode };
  const [invoice] = await tx
    .select()
    .from(invoices)
    .where(and(eq(invoices.orderId, refund.orderId), ownedBy(invoices, scope)));
  if (!invoice) return undefined;
  const earlier = await tx.select({ taxBreakdown: creditNotes.taxBreakdown, amountTotal: creditNotes.amountTotal }).from(creditNotes).where(eq(creditNotes.invoiceId, invoice.id));
  const uncredited = invoice.amountTotal - earlier.reduce((sum, note) => sum + note.amountTotal, 0);
  if (refund.amount > uncredited) {
    log.error({ refund: refund.id, invoice: invoice.id }, 'refund exceeds what its invoice has left uncredited: no credit note issued');
    return undefined;
  }
  const breakdown = splitCredit(
    invoice.taxBreakdown,
    earlier.flatMap((note) => note.taxBreakdown),
    refund.amount,
  );
  const texts = documentTexts(invoice.language);
  // A refund of the whole invoice credits its lines as they were; a part of it, one line per rate.
  const whole = earlier.length === 0 && refund.amount === invoice.amountTotal;
  const lines: DocumentLine[] = whole
    ? invoice.lines
    : breakdown.map((entry) => ({
        description: texts.partialRefundLine(invoice.number, invoice.taxBreakdown.length > 1 ? entry.rate : null),
        quantity: 1,
        unit_amount: entry.amount_net,
        amount_subtotal: entry.amount_net,
        tax_rate: entry.rate,
        amount_tax: entry.amount_tax,
        amount_total: entry.amount_net + entry.amount_tax,
      }));
  const totals = sumBreakdown(breakdown);
  const note: CreditNoteRow = {
    id: newId('cn', refund.livemode),
    ...scope,
    number: await nextDocumentNumber(tx, 'credit_note', scope),
    invoiceId: invoice.id,
    refundId: refund.id,
    orderId: refund.orderId,
    lines,
    taxBreakdown: breakdown,
    amountSubtotal: totals.subtotal,
    amountTax: totals.tax,
    amountTotal: totals.total,
    createdAt: times.now,
  };
  await insertIssued(tx, creditNotes, note, scope, 'credit_note.issued', creditNoteView(note), times);
  return note;
}
