/**
 * Disputes: a cardholder's claim against a paid order, through their card issuer. The card network
 * takes the amount back when it opens, so its entries are written then (the amount, the VAT a credit
 * note for it would carry, the fee); the store answers with evidence until `evidence_due_by`; a won
 * dispute gives the amount back, a lost one is credited and takes back what the order delivered.
 * Every change runs with the order's row locked first, as refunds do, so a refund and a dispute of
 * one order take turns and never count the same money twice.
 */
import { and, desc, eq } from 'drizzle-orm';
import type { Database, Executor, Transaction } from '@/db/client';
import { disputes, orders, stores, type DisputeReason, type DisputeStatus } from '@/db/schema';
import { actorAudit, recordAudit, type Actor } from '../audit/service';
import { recordDisputeOpeningEntries, recordDisputeWonEntries } from '../balance/ledger';
import { epochSeconds, storeClock, type Clock } from '../clock';
import { ApiError, resourceMissing } from '../errors';
import { newId } from '../ids';
import { creditOf, issueCreditNote } from '../invoices/issue';
import { createdWithin, listEnvelope, listPage } from '../kit/list';
import { ownedBy, type Scope } from '../kit/scope';
import { revokeOrderLicenseKeys } from '../licenses/service';
import { enqueueMemberEmails } from '../mail/members';
import { recordEvent, type EventTimes } from '../webhooks/events';
import { EVIDENCE_FIELDS, type Dispute, type DisputeList, type Evidence, type ListDisputesQuery, type UpdateDisputeInput } from './schemas';

export type DisputeRow = typeof disputes.$inferSelect;

/** How long the store has to answer when the acquirer names no deadline. */
export const EVIDENCE_DAYS = 7;
const DAY_MS = 86_400_000;

const EVIDENCE_COLUMNS = {
  customer_communication: 'evidenceCustomerCommunication',
  product_description: 'evidenceProductDescription',
  uncategorized_text: 'evidenceUncategorizedText',
} as const satisfies Record<(typeof EVIDENCE_FIELDS)[number], keyof DisputeRow>;

export function evidenceOf(row: DisputeRow): Evidence {
  return {
    customer_communication: row.evidenceCustomerCommunication,
    product_description: row.evidenceProductDescription,
    uncategorized_text: row.evidenceUncategorizedText,
  };
}

export function disputeView(row: DisputeRow): Dispute {
  return {
    id: row.id,
    object: 'dispute',
    order_id: row.orderId,
    amount: row.amount,
    currency: 'eur',
    reason: row.reason,
    status: row.status,
    evidence_due_by: epochSeconds(row.evidenceDueBy),
    evidence: evidenceOf(row),
    evidence_submitted_at: row.evidenceSubmittedAt === null ? null : epochSeconds(row.evidenceSubmittedAt),
    created: epochSeconds(row.createdAt),
    livemode: row.livemode,
  };
}

/** Whether the dispute is still waiting for its outcome. */
export const isOpenDispute = (status: DisputeRow['status']) => status === 'needs_response' || status === 'under_review';

/**
 * What a lost dispute ends beyond the dispute's own records: the order's subscription, canceled in
 * the dispute's transaction. Given by the caller, since subscriptions are billed through orders
 * and so sit above disputes.
 */
export interface LostDisputeEffects {
  endSubscription(tx: Transaction, scope: Scope, subscriptionId: string, times: EventTimes): Promise<void>;
}

export interface OpenDisputeRequest {
  reason: DisputeReason;
  /** Cents; default and cap: what remains unrefunded. */
  amount?: number | undefined;
  /** Default: `EVIDENCE_DAYS` after opening. */
  evidenceDueBy?: Date | undefined;
}

/**
 * Opens the dispute of `orderId` in `tx`, the order locked first: the amount taken back and its
 * VAT and the fee written to the ledger at once, `dispute.created`, and the `dispute_created`
 * e-mail to the store's owners and admins. Refused, writing nothing: an order that is not paid
 * (400 `parameter_invalid`), already disputed (409 `order_disputed`), refunded in full (409
 * `order_already_processed`), an amount above what remains (400 on `amount`), or a deadline not
 * after the opening (400 on `evidence_due_by`).
 */
export async function openDispute(tx: Transaction, scope: Scope, orderId: string, request: OpenDisputeRequest, context: { fee: number; times: EventTimes }): Promise<DisputeRow> {
  const { times } = context;
  const [order] = await tx
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), ownedBy(orders, scope)))
    .for('update');
  if (!order) throw resourceMissing('order', orderId, 'order');
  if (order.status === 'pending') throw new ApiError('parameter_invalid', `Order ${orderId} is not paid: only a paid order can be disputed.`, { param: 'order' });
  if (order.disputeId !== null) throw new ApiError('order_disputed', `Order ${orderId} already has a dispute, ${order.disputeId}: an order is disputed at most once.`);
  const remaining = order.amountTotal - order.amountRefunded;
  if (remaining <= 0) throw new ApiError('order_already_processed', `Order ${orderId} has been refunded in full: nothing remains to dispute.`);
  const amount = request.amount ?? remaining;
  if (!Number.isInteger(amount) || amount <= 0 || amount > remaining) {
    throw new ApiError('parameter_invalid', `\`amount\` must be a positive number of cents, at most what remains unrefunded on order ${orderId}: ${remaining}.`, { param: 'amount' });
  }
  if (request.evidenceDueBy !== undefined && request.evidenceDueBy.getTime() <= times.now.getTime()) {
    throw new ApiError('parameter_invalid', `\`evidence_due_by\` must be later than the dispute's opening, ${epochSeconds(times.now)} (epoch seconds).`, { param: 'evidence_due_by' });
  }
  const credit = await creditOf(tx, scope, orderId, amount);
  const [dispute] = await tx
    .insert(disputes)
    .values({
      id: newId('dp', scope.livemode),
      storeId: scope.storeId,
      livemode: scope.livemode,
      orderId,
      amount,
      amountTax: credit?.totals.tax ?? 0,
      fee: context.fee,
      reason: request.reason,
      status: 'needs_response',
      evidenceDueBy: request.evidenceDueBy ?? new Date(times.now.getTime() + EVIDENCE_DAYS * DAY_MS),
      createdAt: times.now,
    })
    .returning();
  await tx.update(orders).set({ disputeId: dispute!.id }).where(eq(orders.id, orderId));
  await recordDisputeOpeningEntries(tx, dispute!, times.now);
  await recordEvent(tx, {
    ...scope,
    type: 'dispute.created',
    object: disputeView(dispute!),
    ...times,
  });
  const data = {
    disputeId: dispute!.id,
    orderId,
    amount,
    fee: dispute!.fee,
    reason: dispute!.reason,
    evidenceDueBy: epochSeconds(dispute!.evidenceDueBy),
  };
  await enqueueMemberEmails(
    tx,
    scope,
    ['owner', 'admin'],
    {
      content: { template: 'dispute_created', data },
      related: { orderId, disputeId: dispute!.id },
    },
    times,
  );
  return dispute!;
}

/**
 * Where an order or a dispute of any store is, with its store's clock now: for callers that name
 * the object alone (the operator's commands, the background passes). Undefined for an unknown id.
 */
export async function locateInAnyStore(db: Executor, table: typeof orders | typeof disputes, id: string, wallClock: Clock): Promise<{ scope: Scope; times: EventTimes } | undefined> {
  const [found] = await db
    .select({ storeId: table.storeId, livemode: table.livemode, testClockOffsetSeconds: stores.testClockOffsetSeconds })
    .from(table)
    .innerJoin(stores, eq(stores.id, table.storeId))
    .where(eq(table.id, id));
  if (!found) return undefined;
  const wallNow = wallClock.now();
  return { scope: { storeId: found.storeId, livemode: found.livemode }, times: { now: storeClock({ now: () => wallNow }, found).now(), wallNow } };
}

/** `disputes:create`: the acquirer's dispute of an order recorded by the operator, opened and audited in one transaction. */
export async function createDispute(db: Database, scope: Scope, orderId: string, request: OpenDisputeRequest, context: { fee: number; times: EventTimes; actor: Actor }): Promise<DisputeRow> {
  return db.transaction(async (tx) => {
    const opened = await openDispute(tx, scope, orderId, request, context);
    await recordAudit(
      tx,
      actorAudit(scope, context.actor, 'dispute.create', {
        dispute: opened.id,
        order: orderId,
        reason: opened.reason,
        amount: opened.amount,
        evidence_due_by: epochSeconds(opened.evidenceDueBy),
      }),
    );
    return opened;
  });
}

/** The dispute and its order, locked in that order (the order first, as every change of the order's money takes them). */
async function lockDispute(tx: Transaction, scope: Scope, id: string): Promise<DisputeRow> {
  const [found] = await tx
    .select({ orderId: disputes.orderId })
    .from(disputes)
    .where(and(eq(disputes.id, id), ownedBy(disputes, scope)));
  if (!found) throw resourceMissing('dispute', id);
  await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, found.orderId)).for('update');
  const [row] = await tx.select().from(disputes).where(eq(disputes.id, id)).for('update');
  return row!;
}

/** Records a change of the dispute and its event, `dispute.updated` or `dispute.closed`, with what changed. */
async function changeDispute(tx: Transaction, before: DisputeRow, set: Partial<DisputeRow>, type: 'dispute.updated' | 'dispute.closed', times: EventTimes): Promise<DisputeRow> {
  const [after] = await tx.update(disputes).set(set).where(eq(disputes.id, before.id)).returning();
  await recordEvent(tx, {
    storeId: after!.storeId,
    livemode: after!.livemode,
    type,
    object: disputeView(after!),
    previous: disputeView(before),
    ...times,
  });
  return after!;
}

const hasEvidence = (row: DisputeRow) => EVIDENCE_FIELDS.some((field) => row[EVIDENCE_COLUMNS[field]] !== null);

/**
 * Closes an open dispute with its outcome. `won`: the amount back and the VAT given back at opening
 * taken again (the fee stays). `lost`: a credit note for the amount, the order's license keys
 * revoked, its downloads refused, its subscription canceled. Anything but an open dispute is
 * refused with 409 `dispute_not_editable`.
 */
export async function closeLockedDispute(tx: Transaction, dispute: DisputeRow, outcome: 'won' | 'lost', effects: LostDisputeEffects, times: EventTimes): Promise<DisputeRow> {
  if (!isOpenDispute(dispute.status)) throw new ApiError('dispute_not_editable', `Dispute ${dispute.id} is already ${dispute.status}.`);
  const scope = { storeId: dispute.storeId, livemode: dispute.livemode };
  const closed = await changeDispute(tx, dispute, { status: outcome, closedAt: times.now }, 'dispute.closed', times);
  if (outcome === 'won') {
    await recordDisputeWonEntries(tx, closed, times.now);
    return closed;
  }
  await issueCreditNote(tx, { dispute: closed }, times);
  await revokeOrderLicenseKeys(tx, scope, closed.orderId, times.now);
  const [order] = await tx.select({ subscriptionId: orders.subscriptionId }).from(orders).where(eq(orders.id, closed.orderId));
  if (order!.subscriptionId !== null) await effects.endSubscription(tx, scope, order!.subscriptionId, times);
  return closed;
}

/** `disputes:close`: the acquirer's outcome recorded by the operator, audited in the same transaction. */
export async function closeDispute(db: Database, scope: Scope, id: string, outcome: 'won' | 'lost', context: { effects: LostDisputeEffects; times: EventTimes; actor: Actor }): Promise<DisputeRow> {
  return db.transaction(async (tx) => {
    const closed = await closeLockedDispute(tx, await lockDispute(tx, scope, id), outcome, context.effects, context.times);
    await recordAudit(
      tx,
      actorAudit(scope, context.actor, 'dispute.close', {
        dispute: closed.id,
        order: closed.orderId,
        outcome,
      }),
    );
    return closed;
  });
}

/**
 * Why the dispute's evidence can no longer change at `now` (the store's clock): 409
 * `dispute_not_editable` once submitted or closed, or from `evidence_due_by` on; undefined while
 * it can. The dashboard asks it too, to offer the evidence form only while a save can succeed.
 */
export function evidenceLockedError(dispute: DisputeRow, now: Date): ApiError | undefined {
  if (dispute.status !== 'needs_response') return new ApiError('dispute_not_editable', `Dispute ${dispute.id} is ${dispute.status}: its evidence can no longer change.`);
  if (now.getTime() >= dispute.evidenceDueBy.getTime()) return new ApiError('dispute_not_editable', `The deadline of dispute ${dispute.id} has passed: its evidence can no longer change.`);
  return undefined;
}

/** Submitting with every evidence field empty. */
export const noEvidenceError = () => new ApiError('parameter_invalid', 'There is no evidence to submit: give at least one evidence field first.', { param: 'evidence' });

export interface UpdateDisputeDeps {
  db: Database;
  /** The store's clock: the deadline and `evidence_submitted_at` are read on it. */
  clock: Clock;
  wallClock: Clock;
  actor: Actor;
}

/**
 * POST /disputes/{id} (and the dashboard's evidence form): each evidence field sent replaces the
 * stored one, null clears it; `submit` sends the evidence as it then stands for review. Only while
 * `needs_response` and before `evidence_due_by`: else 409 `dispute_not_editable`. Submitting with
 * every field empty is 400 `parameter_invalid` on `evidence`. Audited; `dispute.updated` when
 * anything changed.
 */
export async function updateDispute(deps: UpdateDisputeDeps, scope: Scope, input: UpdateDisputeInput): Promise<Dispute> {
  const row = await deps.db.transaction(async (tx) => {
    const before = await lockDispute(tx, scope, input.id);
    const now = deps.clock.now();
    const locked = evidenceLockedError(before, now);
    if (locked) throw locked;
    const set: Partial<DisputeRow> = {};
    for (const field of EVIDENCE_FIELDS) {
      const value = input.evidence?.[field];
      if (value !== undefined) set[EVIDENCE_COLUMNS[field]] = value;
    }
    if (input.submit) {
      if (!hasEvidence({ ...before, ...set })) throw noEvidenceError();
      Object.assign(set, { status: 'under_review', evidenceSubmittedAt: now });
    }
    const changed = Object.entries(set).some(([column, value]) => before[column as keyof DisputeRow] !== value);
    if (!changed) return before;
    const after = await changeDispute(tx, before, set, 'dispute.updated', {
      now,
      wallNow: deps.wallClock.now(),
    });
    const fields = EVIDENCE_FIELDS.filter((field) => input.evidence?.[field] !== undefined);
    await recordAudit(
      tx,
      actorAudit(scope, deps.actor, 'dispute.update', {
        dispute: after.id,
        order: after.orderId,
        evidence_fields: fields,
        submitted: input.submit === true,
      }),
    );
    return after;
  });
  return disputeView(row);
}

/**
 * What the deadline decides. Live: saved evidence is submitted for the acquirer's decision (which
 * the operator records), and none loses. Test mode decides at once, as the acquirer would: won
 * when an evidence field contains `winning_evidence` and none `losing_evidence`, else lost.
 */
export async function applyDeadline(tx: Transaction, dispute: DisputeRow, effects: LostDisputeEffects, times: EventTimes): Promise<DisputeRow> {
  let current = dispute;
  if (current.status === 'needs_response' && hasEvidence(current)) {
    current = await changeDispute(tx, current, { status: 'under_review', evidenceSubmittedAt: current.evidenceDueBy }, 'dispute.updated', times);
  }
  if (current.status === 'needs_response') return closeLockedDispute(tx, current, 'lost', effects, times);
  if (current.livemode) return current;
  const texts = Object.values(evidenceOf(current)).filter((text): text is string => text !== null);
  const won = texts.some((text) => text.includes('winning_evidence')) && !texts.some((text) => text.includes('losing_evidence'));
  return closeLockedDispute(tx, current, won ? 'won' : 'lost', effects, times);
}

/** The dispute locked for the deadline pass with its store's clock now, if it is still due (another pass may have taken it). */
export async function lockDueDispute(tx: Transaction, id: string, wallClock: Clock): Promise<{ dispute: DisputeRow; times: EventTimes } | undefined> {
  const found = await locateInAnyStore(tx, disputes, id, wallClock);
  if (!found) return undefined;
  const dispute = await lockDispute(tx, found.scope, id);
  const waiting = dispute.status === 'needs_response' || (dispute.status === 'under_review' && !dispute.livemode);
  return waiting && dispute.evidenceDueBy.getTime() <= found.times.now.getTime() ? { dispute, times: found.times } : undefined;
}

/** GET /disputes/{id}: unknown, foreign and other-environment ids answer alike. */
export async function getDispute(db: Database, scope: Scope, id: string): Promise<Dispute> {
  return disputeView(await readDispute(db, scope, id));
}

export async function readDispute(db: Database, scope: Scope, id: string): Promise<DisputeRow> {
  const [row] = await db
    .select()
    .from(disputes)
    .where(and(eq(disputes.id, id), ownedBy(disputes, scope)));
  if (!row) throw resourceMissing('dispute', id);
  return row;
}

/** GET /disputes: newest first, filtered. */
export async function listDisputes(db: Database, scope: Scope, query: ListDisputesQuery): Promise<DisputeList> {
  const { rows, hasMore } = await listPage(db, disputes, {
    scope,
    page: query,
    kind: 'dispute',
    where: [
      query.status === undefined ? undefined : eq(disputes.status, query.status),
      query.order_id === undefined ? undefined : eq(disputes.orderId, query.order_id),
      ...createdWithin(disputes.createdAt, query),
    ],
  });
  return listEnvelope('/api/v1/disputes', scope, rows.map(disputeView), hasMore);
}

/** `disputes:list`: every store's disputes in both environments, newest first, of one status when given. */
export async function listEveryDispute(db: Database, status: DisputeStatus | undefined): Promise<DisputeRow[]> {
  return db
    .select()
    .from(disputes)
    .where(status === undefined ? undefined : eq(disputes.status, status))
    .orderBy(desc(disputes.createdAt), desc(disputes.id));
}
