/**
 * Live payouts leave through the operator's bank: every pending live payout of every store goes
 * into one SEPA credit-transfer file for the operator to hand to the bank, and turns `in_transit`
 * in the same transaction, so no payout is ever in two files. The file is kept as written
 * (payout_exports, immutable), so it can be written out again byte for byte. Test payouts never
 * leave: they are paid the moment they are made.
 */
import { and, asc, count, eq, inArray } from 'drizzle-orm';
import { lockUntilCommit, type Executor, type Transaction } from '@/db/client';
import { payoutExports, payouts, stores } from '@/db/schema';
import type { OperatorConfig } from '../config';
import { ApiError } from '../errors';
import { recordEvents } from '../webhooks/events';
import { creditTransferDocument } from './sepa';
import { payoutView, type PayoutRow } from './service';

export interface PayoutExport {
  /** `PAYOUTS-<YYYYMMDD>-<n>`, the n-th file for its execution date; null when nothing was pending and no file was made. */
  messageId: string | null;
  /** `YYYY-MM-DD`. */
  executionDate: string;
  document: string | null;
  /** In the file's order. */
  payouts: PayoutRow[];
}

/** The file's order: oldest payout first. */
const FILE_ORDER = [asc(payouts.createdAt), asc(payouts.id)];

/** The operator's account every payout is sent from: without it no file can be made. */
function debtorAccount(operator: OperatorConfig) {
  const { iban, bic } = operator;
  if (!iban || !bic) {
    const missing = [iban ? null : 'OPERATOR_IBAN', bic ? null : 'OPERATOR_BIC'].filter((name) => name !== null);
    throw new ApiError('feature_unavailable', `Payouts cannot be exported without the operator's bank account: set ${missing.join(' and ')} and restart the service.`);
  }
  return { name: operator.legalName, iban, bic };
}

/** A transfer arrives the weekday after its execution date, at 00:00 UTC: Friday's on Monday. */
export function arrivalDate(executionDate: string): Date {
  const day = new Date(`${executionDate}T00:00:00Z`);
  do day.setUTCDate(day.getUTCDate() + 1);
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6);
  return day;
}

/**
 * `payouts:export`: every pending live payout in one file for `executionDate` (today, UTC, or
 * later), recorded with it, each payout `in_transit` with its `payout.updated`. Exports take
 * their turns, so a file's n is counted and a payout read pending by one export at a time.
 */
export async function exportPendingPayouts(tx: Transaction, request: { executionDate: string; operator: OperatorConfig; now: Date }): Promise<PayoutExport> {
  const { executionDate, now } = request;
  const debtor = debtorAccount(request.operator);
  const today = now.toISOString().slice(0, 10);
  if (executionDate < today) throw new ApiError('parameter_invalid', `The execution date ${executionDate} has passed: ask for today (${today}) or a later day.`, { param: 'date' });

  await lockUntilCommit(tx, 'payouts:export');
  const pending = await tx
    .select({ payout: payouts, storeName: stores.name })
    .from(payouts)
    .innerJoin(stores, eq(stores.id, payouts.storeId))
    .where(and(eq(payouts.livemode, true), eq(payouts.status, 'pending')))
    .orderBy(...FILE_ORDER)
    .for('update', { of: payouts });
  if (pending.length === 0) return { messageId: null, executionDate, document: null, payouts: [] };

  const [earlier] = await tx.select({ files: count() }).from(payoutExports).where(eq(payoutExports.executionDate, executionDate));
  const messageId = `PAYOUTS-${executionDate.replaceAll('-', '')}-${earlier!.files + 1}`;
  const document = creditTransferDocument({
    messageId,
    createdAt: now,
    executionDate,
    debtor,
    transfers: pending.map(({ payout, storeName }) => ({
      endToEndId: payout.id,
      amount: payout.amount,
      creditorName: payout.accountHolder,
      creditorIban: payout.iban,
      remittance: `${payout.id} ${storeName}`,
    })),
  });
  await tx.insert(payoutExports).values({ messageId, executionDate, document, createdAt: now });
  const sent = await tx
    .update(payouts)
    .set({ status: 'in_transit', arrivalDate: arrivalDate(executionDate), exportMessageId: messageId })
    .where(
      inArray(
        payouts.id,
        pending.map(({ payout }) => payout.id),
      ),
    )
    .returning();
  const sentById = new Map(sent.map((row) => [row.id, row]));
  const exported = pending.map(({ payout }) => ({ before: payout, after: sentById.get(payout.id)! }));
  // Live mode: the store's clock is the real time.
  await recordEvents(
    tx,
    exported.map(({ before, after }) => ({ storeId: after.storeId, livemode: true, type: 'payout.updated', object: payoutView(after), previous: payoutView(before), now, wallNow: now })),
  );
  return { messageId, executionDate, document, payouts: exported.map(({ after }) => after) };
}

/** `payouts:export --message-id`: a file exactly as it was made, with the payouts it sent. */
export async function readPayoutExport(db: Executor, messageId: string): Promise<PayoutExport> {
  const [file] = await db.select().from(payoutExports).where(eq(payoutExports.messageId, messageId));
  if (!file) throw new ApiError('resource_missing', `No payout export with message id '${messageId}'.`, { param: 'messageId' });
  const sent = await db
    .select()
    .from(payouts)
    .where(eq(payouts.exportMessageId, messageId))
    .orderBy(...FILE_ORDER);
  return { messageId, executionDate: file.executionDate, document: file.document, payouts: sent };
}
