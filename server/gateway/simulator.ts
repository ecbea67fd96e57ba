import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { simulatorCharges, simulatorRecurring, simulatorRefunds } from '@/db/schema';
import type { Clock } from '../clock';
import { randomBase62 } from '../ids';
import { cardBrand, last4 } from './card-number';
import type { ChargeRequest, ChargeResult, PaymentGateway, RecurringChargeRequest, RefundLookup, RefundRequest, RefundResult } from './types';

/**
 * The test-mode gateway. It moves no money; the outcome follows from the test card.
 *
 * Its ledger is in the database (db/schema/simulator.ts) rather than in memory or derived from
 * the key: an idempotent replay must answer the same result after a restart and on another
 * instance sharing the database, recurring contracts must outlive the process that created
 * them, and tests count the rows to prove a session was charged exactly once.
 */

type Scenario = 'approve' | 'decline' | 'decline_recurring' | 'decline_first_recurring';

const TEST_CARDS: Record<string, Scenario> = {
  '4242424242424242': 'approve',
  '4000000000000002': 'decline',
  '4000000000000341': 'decline_recurring',
  '4000000000003063': 'decline_first_recurring',
  // Pay like 4242…; the service then opens a dispute of the payment (server/disputes/test-cards.ts).
  '4000000000000259': 'approve',
  '4000000000002685': 'approve',
  // Pay like 4242…, issued in the country whose ISO numeric code is digits 7–9 (evidence of where the buyer is).
  '4000002760000016': 'approve',
  '4000002500000003': 'approve',
  '4000000400000008': 'approve',
  '4000003800000008': 'approve',
  '4000008400000001': 'approve',
};

/** The issuing country of the test cards that have one; every other card's is unknown. */
const TEST_CARD_COUNTRIES: Readonly<Record<string, string>> = {
  '4000002760000016': 'DE',
  '4000002500000003': 'FR',
  '4000000400000008': 'AT',
  '4000003800000008': 'IT',
  '4000008400000001': 'US',
};

/** A test card's issuing country (ISO alpha-2), or null when it has none. */
export function testCardCountry(digits: string): string | null {
  return TEST_CARD_COUNTRIES[digits] ?? null;
}

/**
 * Whether a (digits-only) number is one of the published test cards. Lets a hosted page refuse
 * any other number with `unsupported_test_card` before it spends something single-use (a
 * subscription checkout's link) on an attempt the simulator would refuse anyway.
 */
export function isTestCard(digits: string): boolean {
  return Object.hasOwn(TEST_CARDS, digits);
}

type ChargeRow = typeof simulatorCharges.$inferSelect;

function toResult(row: ChargeRow): ChargeResult {
  if (row.status === 'succeeded') {
    const result: ChargeResult = { status: 'succeeded', paymentId: row.paymentId, brand: row.brand, last4: row.last4 };
    if (row.recurringId && row.kind === 'charge') result.recurringId = row.recurringId;
    return result;
  }
  return {
    status: 'declined',
    code: (row.failureCode ?? 'card_declined') as Extract<ChargeResult, { status: 'declined' }>['code'],
    paymentId: row.paymentId,
    brand: row.brand,
    last4: row.last4,
  };
}

export function createSimulatorGateway(deps: { db: Database; clock: Clock }): PaymentGateway {
  const { db, clock } = deps;

  async function findCharge(idempotencyKey: string): Promise<ChargeRow | undefined> {
    const [row] = await db.select().from(simulatorCharges).where(eq(simulatorCharges.idempotencyKey, idempotencyKey));
    return row;
  }

  /**
   * Records a charge under its key, or returns the one already there. Two calls racing with one
   * key both reach the insert; `on conflict do nothing` lets exactly one row win and the loser
   * reads the winner's row, so a key is charged at most once whatever the interleaving.
   */
  async function recordOnce(row: ChargeRow, recurring?: typeof simulatorRecurring.$inferInsert): Promise<ChargeResult> {
    // A charge that opens no contract is one row: a single statement, no transaction.
    const inserted = recurring
      ? await db.transaction(async (tx) => {
          const rows = await tx.insert(simulatorCharges).values(row).onConflictDoNothing().returning();
          if (rows.length > 0) await tx.insert(simulatorRecurring).values(recurring);
          return rows[0];
        })
      : (await db.insert(simulatorCharges).values(row).onConflictDoNothing().returning())[0];
    const stored = inserted ?? (await findCharge(row.idempotencyKey));
    if (!stored) throw new Error(`simulator: charge ${row.idempotencyKey} vanished`);
    return toResult(stored);
  }

  return {
    // Simulated charges never ask for a challenge.
    challengeOrigins: [],

    async charge(request: ChargeRequest): Promise<ChargeResult> {
      const existing = await findCharge(request.idempotencyKey);
      if (existing) return toResult(existing);
      const digits = request.card.number;
      const scenario = TEST_CARDS[digits];
      const base = {
        idempotencyKey: request.idempotencyKey,
        paymentId: `sim_pay_${randomBase62(24)}`,
        kind: 'charge' as const,
        amount: request.amount,
        description: request.description,
        brand: cardBrand(digits),
        last4: last4(digits),
        recurringId: null,
        createdAt: clock.now(),
      };
      if (!scenario) return recordOnce({ ...base, status: 'declined', failureCode: 'unsupported_test_card' });
      if (scenario === 'decline') return recordOnce({ ...base, status: 'declined', failureCode: 'card_declined' });
      if (!request.recurring) return recordOnce({ ...base, status: 'succeeded', failureCode: null });
      const recurringId = `sim_rec_${randomBase62(24)}`;
      return recordOnce({ ...base, status: 'succeeded', failureCode: null, recurringId }, { id: recurringId, scenario, brand: base.brand, last4: base.last4, createdAt: base.createdAt });
    },

    async retrieveCharge(idempotencyKey: string): Promise<ChargeResult | null> {
      const row = await findCharge(idempotencyKey);
      return row ? toResult(row) : null;
    },

    async cancelCharge(paymentId: string): Promise<ChargeResult | null> {
      // Every simulated charge is decided at once: there is never one left to withdraw.
      const [row] = await db.select().from(simulatorCharges).where(eq(simulatorCharges.paymentId, paymentId));
      return row ? toResult(row) : null;
    },

    async chargeRecurring(request: RecurringChargeRequest): Promise<ChargeResult> {
      // The contract, and whether a recurring charge was made on it before (declined ones count:
      // "the first recurring charge declined, every later one approved" is about attempts, retries
      // included). A key charged before needs no look-up of its own: recordOnce returns its row.
      const [found] = await db
        .select({
          contract: simulatorRecurring,
          madeBefore: sql<boolean>`exists (select 1 from ${simulatorCharges} where ${simulatorCharges.recurringId} = ${simulatorRecurring.id} and ${simulatorCharges.kind} = 'recurring')`,
        })
        .from(simulatorRecurring)
        .where(eq(simulatorRecurring.id, request.recurringId));
      if (!found) throw new Error(`simulator: no recurring contract ${request.recurringId}`);
      const { contract, madeBefore } = found;
      const declined = contract.canceledAt !== null || contract.scenario === 'decline_recurring' || (contract.scenario === 'decline_first_recurring' && !madeBefore);
      return recordOnce({
        idempotencyKey: request.idempotencyKey,
        paymentId: `sim_pay_${randomBase62(24)}`,
        kind: 'recurring',
        status: declined ? 'declined' : 'succeeded',
        failureCode: declined ? 'card_declined' : null,
        amount: request.amount,
        description: request.description,
        brand: contract.brand,
        last4: contract.last4,
        recurringId: contract.id,
        createdAt: clock.now(),
      });
    },

    async cancelRecurring(recurringId: string): Promise<void> {
      await db
        .update(simulatorRecurring)
        .set({ canceledAt: clock.now() })
        .where(and(eq(simulatorRecurring.id, recurringId), sql`${simulatorRecurring.canceledAt} is null`));
    },

    async refund(request: RefundRequest): Promise<RefundResult> {
      // One transaction with the charge row locked: two refunds racing on one payment cannot
      // together exceed what was charged.
      return db.transaction(async (tx) => {
        const [charge] = await tx.select().from(simulatorCharges).where(eq(simulatorCharges.paymentId, request.paymentId)).for('update');
        const [replay] = await tx.select().from(simulatorRefunds).where(eq(simulatorRefunds.idempotencyKey, request.idempotencyKey));
        if (replay) return { refundId: replay.refundId, status: replay.status };
        const [sums] = await tx
          .select({ refunded: sql<number>`coalesce(sum(${simulatorRefunds.amount}), 0)::int` })
          .from(simulatorRefunds)
          .where(and(eq(simulatorRefunds.paymentId, request.paymentId), eq(simulatorRefunds.status, 'succeeded')));
        const ok = !!charge && charge.status === 'succeeded' && request.amount > 0 && (sums?.refunded ?? 0) + request.amount <= charge.amount;
        const row = {
          idempotencyKey: request.idempotencyKey,
          refundId: `sim_re_${randomBase62(24)}`,
          paymentId: request.paymentId,
          amount: request.amount,
          status: ok ? ('succeeded' as const) : ('failed' as const),
          createdAt: clock.now(),
        };
        // Unknown payment ids lock nothing, so a racing replay of the same key may insert first.
        const [inserted] = await tx.insert(simulatorRefunds).values(row).onConflictDoNothing().returning();
        if (inserted) return { refundId: inserted.refundId, status: inserted.status };
        const [winner] = await tx.select().from(simulatorRefunds).where(eq(simulatorRefunds.idempotencyKey, request.idempotencyKey));
        return { refundId: winner!.refundId, status: winner!.status };
      });
    },

    async retrieveRefund(lookup: RefundLookup): Promise<RefundResult | null> {
      const [row] = await db.select().from(simulatorRefunds).where(eq(simulatorRefunds.idempotencyKey, lookup.idempotencyKey));
      return row ? { refundId: row.refundId, status: row.status } : null;
    },
  };
}
