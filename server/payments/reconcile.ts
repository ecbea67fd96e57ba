import { and, asc, eq, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { OPEN_ATTEMPT_STATUSES, paymentAttempts, type paymentMethodUpdates, type planChanges, type subscriptionCharges } from '@/db/schema';
import type { Clock } from '../clock';
import { chargeLookup, type ChargeResult, type Gateways, type PaymentGateway } from '../gateway/types';
import { DEFAULT_LEASE_MS } from '../config';
import { forEachLeased } from '../kit/lease';
import { settleAttempt, type AttemptRow, type SessionRow, type SettleDeps } from './settle';

export interface ReconcileSettings {
  /**
   * A `processing` attempt older than this (wall clock) belongs to a request that died between
   * committing the attempt and settling it: well above the gateway timeout, so a live request is
   * never second-guessed while it still waits for the gateway.
   */
  staleAfterSeconds: number;
  /**
   * "The gateway has no such charge" is trusted only for attempts older than this: a margin for
   * a request the gateway is still receiving (the Stripe adapter's look-up itself is current).
   */
  notFoundAfterSeconds: number;
  /**
   * A 3-D Secure challenge still unfinished this long after the attempt began is withdrawn at the
   * gateway: the customer has left, and the attempt would otherwise stay open (and be polled) for
   * ever, keeping the session from taking another card.
   */
  abandonChallengeAfterSeconds: number;
}

export const DEFAULT_RECONCILE_SETTINGS: ReconcileSettings = { staleAfterSeconds: 60, notFoundAfterSeconds: 120, abandonChallengeAfterSeconds: 3600 };

/** What asking the gateway about an open customer-present charge decided: settle it with `found` (null: nothing moved), or ask again later. */
export type OpenChargeAnswer = { decided: false } | { decided: true; found: ChargeResult | null; withdrawn: boolean };

/**
 * The gateway's word on a charge only the customer's page could have made (a subscription's first
 * charge, a new card): looked up under its key, never charged again. A challenge the customer
 * never reached (the request timed out) or left unfinished past the limit is withdrawn; a key
 * the gateway never received counts as nothing moved only after the grace period.
 */
export async function askAboutOpenCharge(
  gateway: PaymentGateway,
  row: { idempotencyKey: string; status: string; createdAt: Date; gatewayPaymentId: string | null },
  nowMs: number,
  settings: ReconcileSettings,
): Promise<OpenChargeAnswer> {
  const ageMs = nowMs - row.createdAt.getTime();
  let found: ChargeResult | null;
  let withdrawn = false;
  try {
    found = await gateway.retrieveCharge(row.idempotencyKey, chargeLookup(row));
    if (found?.status === 'requires_action' && (row.status !== 'requires_action' || ageMs >= settings.abandonChallengeAfterSeconds * 1000)) {
      found = await gateway.cancelCharge(found.paymentId);
      withdrawn = true;
    }
  } catch {
    return { decided: false };
  }
  if (found?.status === 'requires_action' || (found === null && !withdrawn && ageMs < settings.notFoundAfterSeconds * 1000)) return { decided: false };
  return { decided: true, found, withdrawn };
}

/** Tables of charges a customer's page made, asked about by askAboutOpenCharge. */
type OpenChargeTable = typeof subscriptionCharges | typeof paymentMethodUpdates | typeof planChanges;

/**
 * One pass over `table`'s rows that `open` names and that are past the grace period: least
 * recently asked first, each leased while the gateway is asked about it under its key; a decided
 * one is settled by `settle`, the rest marked asked so they go after the others next time. Returns
 * how many it settled.
 */
export async function reconcileOpenCharges<Table extends OpenChargeTable>(
  deps: { db: Database; clock: Clock; gateways: Gateways },
  table: Table,
  open: SQL | undefined,
  settle: (row: Table['$inferSelect'], answer: Extract<OpenChargeAnswer, { decided: true }>) => Promise<void>,
  settings: Partial<ReconcileSettings>,
  leaseMs: number,
): Promise<number> {
  const asked: OpenChargeTable = table;
  const resolved = { ...DEFAULT_RECONCILE_SETTINGS, ...settings };
  const now = deps.clock.now().getTime();
  const pass = {
    where: and(open, lte(asked.createdAt, new Date(now - resolved.staleAfterSeconds * 1000))),
    orderBy: [sql`${asked.checkedAt} asc nulls first`, asc(asked.createdAt)],
    limit: 100,
    now: () => deps.clock.now(),
    leaseMs,
  };
  return forEachLeased(deps.db, table, pass, async (row) => {
    const answer = await askAboutOpenCharge(deps.gateways[row.livemode ? 'live' : 'test'], row, now, resolved);
    // Undecided (no answer, a challenge still open, a miss within the grace period): asked again later, after the others.
    if (!answer.decided) {
      await deps.db.update(asked).set({ checkedAt: deps.clock.now() }).where(eq(asked.id, row.id));
      return false;
    }
    await settle(row, answer);
    return true;
  });
}

export interface ReconcileDeps extends SettleDeps {
  gateways: Gateways;
  settings?: Partial<ReconcileSettings>;
}

function settingsOf(deps: ReconcileDeps): ReconcileSettings {
  return { ...DEFAULT_RECONCILE_SETTINGS, ...deps.settings };
}

function ageSeconds(attempt: AttemptRow, now: Date): number {
  return (now.getTime() - attempt.createdAt.getTime()) / 1000;
}

export type Resolution = { settled: true; attempt: AttemptRow; session: SessionRow; redirectUrl?: string } | { settled: false; attempt: AttemptRow };

/**
 * Asks the gateway what became of one open attempt and records it (exactly once, settle.ts).
 * Never charges: it only reads the charge made under the attempt's idempotency key.
 * A young `processing` attempt is left alone (its own request is still waiting for the gateway);
 * so is anything the gateway cannot answer about right now. The one write it may make is to
 * withdraw a challenge the customer abandoned, which settles the attempt as abandoned.
 */
export async function resolveAttempt(deps: ReconcileDeps, attempt: AttemptRow): Promise<Resolution> {
  const settings = settingsOf(deps);
  const age = ageSeconds(attempt, deps.clock.now());
  if (attempt.status === 'processing' && age < settings.staleAfterSeconds) return { settled: false, attempt };
  const gateway = deps.gateways[attempt.livemode ? 'live' : 'test'];
  let found;
  try {
    found = await gateway.retrieveCharge(attempt.idempotencyKey, chargeLookup(attempt));
  } catch {
    // Still unreachable or still undecided: stays open, tried again later.
    return { settled: false, attempt };
  }
  if (found === null && age < settings.notFoundAfterSeconds) return { settled: false, attempt };
  if (found?.status === 'requires_action' && age >= settings.abandonChallengeAfterSeconds) return withdrawChallenge(deps, attempt, found.paymentId);
  const { attempt: settled, session } = await settleAttempt(deps, attempt.id, found);
  // A challenge still pending: the customer is sent back to it.
  if (settled.status === 'requires_action' && found?.status === 'requires_action') return { settled: true, attempt: settled, session, redirectUrl: found.redirectUrl };
  if (settled.status === 'requires_action') return { settled: false, attempt: settled };
  return { settled: true, attempt: settled, session };
}

/**
 * Withdraws an attempt's 3-D Secure challenge at the gateway and settles what that leaves:
 * abandoned (withdrawn, nothing charged), or paid when the customer finished first. Unsettled
 * while the gateway cannot be reached.
 */
export async function withdrawChallenge(deps: ReconcileDeps, attempt: AttemptRow, paymentId: string): Promise<Resolution> {
  let outcome;
  try {
    outcome = await deps.gateways[attempt.livemode ? 'live' : 'test'].cancelCharge(paymentId);
  } catch {
    return { settled: false, attempt };
  }
  const { attempt: settled, session } = await settleAttempt(deps, attempt.id, outcome);
  return { settled: true, attempt: settled, session };
}

/**
 * The background sweep (server/payments/jobs.ts; a submit does the same for its own session):
 * settles attempts whose outcome was never recorded, a timeout (`unknown`), a crash
 * (`processing` gone stale) or a 3-D Secure challenge, by looking the charge up at the gateway.
 * Each attempt is leased while it is asked about (server/kit/lease.ts), so passes of several
 * processes never ask about one at once; a session is completed or failed exactly once however
 * many sweeps and submits race. Least recently checked first, and every attempt left open is
 * marked checked, so challenges customers never finish cannot crowd out newer attempts. Returns
 * how many attempts were settled.
 */
export async function reconcilePaymentAttempts(deps: ReconcileDeps, options: { sessionId?: string; limit?: number; leaseMs?: number } = {}): Promise<number> {
  const conditions = [inArray(paymentAttempts.status, [...OPEN_ATTEMPT_STATUSES])];
  if (options.sessionId) conditions.push(eq(paymentAttempts.checkoutSessionId, options.sessionId));
  const pass = { where: and(...conditions), orderBy: [asc(paymentAttempts.updatedAt)], limit: options.limit ?? 100, now: () => deps.clock.now(), leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS };
  return forEachLeased(deps.db, paymentAttempts, pass, async (attempt) => {
    const resolution = await resolveAttempt(deps, attempt);
    if (resolution.settled && resolution.attempt.status !== 'requires_action') return true;
    await deps.db
      .update(paymentAttempts)
      .set({ updatedAt: deps.clock.now() })
      .where(and(eq(paymentAttempts.id, attempt.id), inArray(paymentAttempts.status, [...OPEN_ATTEMPT_STATUSES])));
    return false;
  });
}
