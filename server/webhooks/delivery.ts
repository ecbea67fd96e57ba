/**
 * The webhook delivery worker. Each webhook_deliveries row is a job: a pass claims
 * the due ones with FOR UPDATE SKIP LOCKED, leases them (pushes next_attempt_at past the request
 * timeout and counts the attempt) and commits, then sends outside any transaction and records
 * the outcome. A worker that dies mid-attempt leaves the lease to expire, and the delivery is
 * sent again under the same `webhook-id` (receivers dedupe on it). Any number of workers may
 * run side by side.
 *
 * Order per object: a delivery is due only when no earlier delivery of the same object to the
 * same endpoint is still pending (delivered or given up both unblock it). Sequences follow the
 * order of the state changes, which write their events under the object's row lock. A resend
 * replays a past event: it neither waits for nor holds back the object's other deliveries.
 * A disabled endpoint's deliveries are not claimed: they wait, pending, until it is enabled.
 */
import { and, asc, desc, eq, exists, inArray, isNull, lt, lte, notExists, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database, Transaction } from '@/db/client';
import { stores, webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, webhookEvents } from '@/db/schema';
import { epochSeconds, storeClock, type Clock } from '../clock';
import type { Config } from '../config';
import type { HostResolver } from './destinations';
import { signingSecrets, signPayload, type EndpointSecretState } from './secrets';
import { sendWebhook, type WebhookResponse } from './sender';
import { countWebhookDelivery } from '../observability/metrics';

/** Retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then the delivery is given up. */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** A delivery succeeds on a 2xx within 15 s. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** How long past the timeout a claimed delivery stays leased before another worker may retry it. */
const LEASE_MARGIN_MS = 45_000;
/** Attempts one pass runs at once. */
const MAX_IN_FLIGHT = 64;
/** Attempts one store in one environment may always run at once in a pass: its fair share. */
export const SCOPE_SHARE = 8;
/**
 * Slots a store beyond its share leaves free for the others' shares: a store whose receivers
 * hang holds at most MAX_IN_FLIGHT - SHARED_HEADROOM, and another store's delivery still finds a
 * slot at once. Past its share a store takes a slot only below that line, so as the hanging
 * attempts time out it is brought back towards its share while others need theirs.
 */
const SHARED_HEADROOM = 32;
/** Past its share, a store takes a slot only while fewer attempts than this run. */
export const MAX_IN_FLIGHT_BEYOND_SHARES = MAX_IN_FLIGHT - SHARED_HEADROOM;
/** How often a pass with attempts in flight looks for newly due deliveries, by default. */
const CLAIM_INTERVAL_MS = 1000;

export interface DeliveryDeps {
  db: Database;
  /** Wall clock: deliveries are scheduled in real time; a test clock's advance brings test-mode ones forward (advanceTestDeliveries). */
  clock: Clock;
  config: Pick<Config, 'authSecret' | 'webhooksAllowPrivate'>;
  timeoutMs?: number;
  /** How long a claim holds a delivery (BACKGROUND_LEASE_MS); by default the request timeout and LEASE_MARGIN_MS. */
  leaseMs?: number;
  resolveHost?: HostResolver;
  /** While attempts are in flight, how often the pass claims what fell due meanwhile (WEBHOOK_DELIVERY_INTERVAL_MS). */
  claimIntervalMs?: number;
}

interface ClaimedDelivery {
  id: string;
  storeId: string;
  attempt: number;
  endpoint: EndpointSecretState;
  url: string;
  livemode: boolean;
  /** The store's test clock: a rolled secret's overlap ends on it in test mode. */
  testClockOffsetSeconds: number;
  eventId: string;
  payload: Record<string, unknown>;
}

const earlier = alias(webhookDeliveries, 'earlier_delivery');

/** A store in one environment: the unit that gets a fair share of a pass's attempts. */
const scopeKey = (delivery: { storeId: string; livemode: boolean }) => `${delivery.storeId}:${delivery.livemode}`;

/**
 * Leases due deliveries for a pass that runs `running` attempts, `busy` of them per store and
 * environment: at most the oldest pending one per object and endpoint. The stores take turns
 * (each one's oldest due delivery first, then each one's second, …), live before test within a
 * turn, so a store with a large backlog cannot fill a claim; each gets up to its share
 * (SCOPE_SHARE) while the pass has room, and more only below MAX_IN_FLIGHT_BEYOND_SHARES. Every
 * process claims this way, and a leased delivery is no longer due for the others.
 */
async function claimDueDeliveries(deps: DeliveryDeps, running: number, busy: ReadonlyMap<string, number>): Promise<ClaimedDelivery[]> {
  const now = deps.clock.now();
  const leaseUntil = new Date(now.getTime() + (deps.leaseMs ?? (deps.timeoutMs ?? DELIVERY_TIMEOUT_MS) + LEASE_MARGIN_MS));
  const busyByScope = JSON.stringify(Object.fromEntries(busy));
  return deps.db.transaction(async (tx) => {
    const candidates = tx
      .select({
        id: webhookDeliveries.id,
        livemode: webhookDeliveries.livemode,
        nextAttemptAt: webhookDeliveries.nextAttemptAt,
        sequence: webhookDeliveries.sequence,
        // The turn of this delivery's store: its place among the store's due deliveries, after the attempts already running for it.
        turn: sql<number>`row_number() over (partition by ${webhookDeliveries.storeId}, ${webhookDeliveries.livemode} order by ${webhookDeliveries.nextAttemptAt}, ${webhookDeliveries.sequence})
          + coalesce((${busyByScope}::jsonb ->> (${webhookDeliveries.storeId} || ':' || ${webhookDeliveries.livemode}::text))::int, 0)`.as('turn'),
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(
        and(
          eq(webhookDeliveries.status, 'pending'),
          lte(webhookDeliveries.nextAttemptAt, now),
          isNull(webhookEndpoints.deletedAt),
          eq(webhookEndpoints.disabled, false),
          or(
            webhookDeliveries.resend,
            notExists(
              tx
                .select({ id: earlier.id })
                .from(earlier)
                .where(
                  and(
                    eq(earlier.endpointId, webhookDeliveries.endpointId),
                    eq(earlier.objectId, webhookDeliveries.objectId),
                    eq(earlier.status, 'pending'),
                    eq(earlier.resend, false),
                    lt(earlier.sequence, webhookDeliveries.sequence),
                  ),
                ),
            ),
          ),
        ),
      )
      .as('candidates');
    const limit = MAX_IN_FLIGHT - running;
    // Twice the claim, so rows another process holds locked leave room for the next ones in turn.
    const picked = await tx
      .select({ id: candidates.id, turn: candidates.turn })
      .from(candidates)
      .orderBy(asc(candidates.turn), desc(candidates.livemode), asc(candidates.nextAttemptAt), asc(candidates.sequence))
      .limit(limit * 2);
    if (picked.length === 0) return [];
    // Still due once locked: another process may have leased a row since it was picked.
    const locked = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        and(
          inArray(
            webhookDeliveries.id,
            picked.map((row) => row.id),
          ),
          eq(webhookDeliveries.status, 'pending'),
          lte(webhookDeliveries.nextAttemptAt, now),
        ),
      )
      .for('update', { skipLocked: true });
    const lockedIds = new Set(locked.map((row) => row.id));
    const due: { id: string }[] = [];
    for (const row of picked) {
      if (due.length === limit) break;
      // In turn order: every share comes before any delivery beyond a share.
      const withinShare = Number(row.turn) <= SCOPE_SHARE;
      if (lockedIds.has(row.id) && (withinShare || running + due.length < MAX_IN_FLIGHT_BEYOND_SHARES)) due.push(row);
    }
    if (due.length === 0) return [];
    const leased = await tx
      .update(webhookDeliveries)
      .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, nextAttemptAt: leaseUntil })
      .where(
        inArray(
          webhookDeliveries.id,
          due.map((row) => row.id),
        ),
      )
      .returning({ id: webhookDeliveries.id, attempt: webhookDeliveries.attempts });
    const attemptOf = new Map(leased.map((row) => [row.id, row.attempt]));
    const rows = await tx
      .select({
        id: webhookDeliveries.id,
        storeId: webhookDeliveries.storeId,
        endpoint: {
          id: webhookEndpoints.id,
          secretGeneration: webhookEndpoints.secretGeneration,
          previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
        },
        url: webhookEndpoints.url,
        livemode: webhookEndpoints.livemode,
        testClockOffsetSeconds: stores.testClockOffsetSeconds,
        eventId: webhookEvents.id,
        payload: webhookEvents.payload,
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .innerJoin(stores, eq(stores.id, webhookDeliveries.storeId))
      .where(inArray(webhookDeliveries.id, [...attemptOf.keys()]));
    return rows.map((row) => ({ ...row, attempt: attemptOf.get(row.id)! }));
  });
}

/**
 * A store's test clock moved forward: its test-mode deliveries fall due `seconds` sooner, since
 * retry delays in test mode run on the store's clock (next_attempt_at stays wall time). Runs in
 * the transaction that moves the clock. A delivery in flight keeps its lease: that one's
 * next_attempt_at guards the attempt, and its retry is counted from its own failure.
 */
export async function advanceTestDeliveries(tx: Transaction, storeId: string, seconds: number): Promise<void> {
  const pendingOfStore = and(eq(webhookDeliveries.storeId, storeId), eq(webhookDeliveries.livemode, false), eq(webhookDeliveries.status, 'pending'));
  // Locked first, moved by a second statement: its fresh snapshot sees the attempts recorded by
  // the outcomes the lock waited for, so a retry scheduled meanwhile moves and a new lease does not.
  await tx.execute(sql`select count(*) from (${tx.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(pendingOfStore).for('update')}) as locked`);
  await tx
    .update(webhookDeliveries)
    .set({ nextAttemptAt: sql`${webhookDeliveries.nextAttemptAt} - ${seconds} * interval '1 second'` })
    .where(
      and(
        pendingOfStore,
        or(
          eq(webhookDeliveries.attempts, 0),
          exists(
            tx
              .select({ id: webhookDeliveryAttempts.id })
              .from(webhookDeliveryAttempts)
              .where(and(eq(webhookDeliveryAttempts.deliveryId, webhookDeliveries.id), eq(webhookDeliveryAttempts.attempt, webhookDeliveries.attempts))),
          ),
        ),
      ),
    );
}

/**
 * Standard Webhooks headers for one attempt: same id every time, the attempt's own wall-clock
 * timestamp, one signature per secret (space separated, as the scheme allows: a receiver holding
 * either secret of a roll's overlap verifies).
 */
export function webhookHeaders(secrets: string | readonly string[], eventId: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': [secrets]
      .flat()
      .map((secret) => signPayload(secret, eventId, timestamp, body))
      .join(' '),
  };
}

async function attemptDelivery(deps: DeliveryDeps, delivery: ClaimedDelivery): Promise<void> {
  const attemptedAt = deps.clock.now();
  const storeNow = storeClock({ now: () => attemptedAt }, delivery).now();
  // The stored envelope, serialised once: these are exactly the bytes signed and sent.
  const body = JSON.stringify(delivery.payload);
  const headers = webhookHeaders(signingSecrets(deps.config, delivery.endpoint, storeNow), delivery.eventId, epochSeconds(attemptedAt), body);
  const response = await sendWebhook(
    {
      url: delivery.url,
      livemode: delivery.livemode,
      allowPrivate: deps.config.webhooksAllowPrivate,
      headers,
      body,
      timeoutMs: deps.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    },
    deps.resolveHost,
  );
  await recordOutcome(deps, delivery, attemptedAt, response);
}

const succeeded = (response: WebhookResponse) => response.status !== null && response.status >= 200 && response.status < 300;

/**
 * Logs the attempt and moves the delivery on: succeeded, the next retry of the schedule, or
 * given up after the last one. Only the lease holder (same attempt number, still pending) may
 * move it, so a deleted endpoint's delivery or one re-claimed after a lost lease stays put.
 */
async function recordOutcome(deps: DeliveryDeps, delivery: ClaimedDelivery, attemptedAt: Date, response: WebhookResponse): Promise<void> {
  const now = deps.clock.now();
  const error = succeeded(response) ? null : (response.error ?? `The endpoint answered ${response.status}; only a 2xx counts as delivered.`);
  const retryDelay = RETRY_DELAYS_SECONDS[delivery.attempt - 1];
  const next =
    error === null
      ? { status: 'succeeded' as const, nextAttemptAt: null, completedAt: now }
      : retryDelay !== undefined
        ? { status: 'pending' as const, nextAttemptAt: new Date(now.getTime() + retryDelay * 1000), completedAt: null }
        : { status: 'failed' as const, nextAttemptAt: null, completedAt: now };
  const recorded = await deps.db.transaction(async (tx) => {
    await tx
      .insert(webhookDeliveryAttempts)
      .values({ deliveryId: delivery.id, attempt: delivery.attempt, responseStatus: response.status, error, durationMs: response.durationMs, attemptedAt })
      .onConflictDoNothing();
    return tx
      .update(webhookDeliveries)
      .set({ ...next, lastResponseStatus: response.status, lastError: error })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.attempts, delivery.attempt)))
      .returning({ id: webhookDeliveries.id });
  });
  // Counted only when this attempt moved the delivery on (the lease holder's update matched).
  if (recorded.length > 0) countWebhookDelivery(next.status === 'pending' ? 'retrying' : next.status);
}

/**
 * One pass: keeps up to MAX_IN_FLIGHT attempts running, each store in each environment its share
 * of them (claimDueDeliveries), claiming more as they finish and, while they run, every claim
 * interval, until nothing is due and nothing is running. A slow or silent receiver holds its own
 * slots, not the others: another store's delivery that falls due meanwhile is claimed within the
 * interval. The next event of an object is claimed as soon as the one before it is delivered.
 * Two attempts of one object never run together: an attempt in flight stays pending, which keeps
 * its successor out of every claim.
 */
export async function deliverDueWebhooks(deps: DeliveryDeps): Promise<number> {
  const inFlight = new Set<Promise<void>>();
  /** Attempts running per store and environment. */
  const busy = new Map<string, number>();
  let handled = 0;
  let failure: { error: unknown } | undefined;
  // Attempts finished so far: one that finishes while a claim runs may unblock the next event of
  // its object, which that claim could not see yet, so the pass claims once more after it.
  let finished = 0;
  for (;;) {
    let claimed: ClaimedDelivery[] = [];
    const finishedBeforeClaim = finished;
    if (!failure && inFlight.size < MAX_IN_FLIGHT) {
      try {
        claimed = await claimDueDeliveries(deps, inFlight.size, busy);
      } catch (error) {
        // The attempts in flight still finish (and record) before the pass reports the failure.
        failure = { error };
      }
    }
    for (const delivery of claimed) {
      const scope = scopeKey(delivery);
      busy.set(scope, (busy.get(scope) ?? 0) + 1);
      const attempt: Promise<void> = attemptDelivery(deps, delivery)
        .catch((error: unknown) => {
          // Recording failed (the database): the lease runs out and another pass retries it.
          failure ??= { error };
        })
        .finally(() => {
          inFlight.delete(attempt);
          const left = busy.get(scope)! - 1;
          if (left === 0) busy.delete(scope);
          else busy.set(scope, left);
          finished += 1;
        });
      inFlight.add(attempt);
    }
    handled += claimed.length;
    const finishedDuringClaim = finished !== finishedBeforeClaim;
    if (inFlight.size === 0) {
      if (failure || !finishedDuringClaim) break;
      continue;
    }
    // Claims again at once when this claim found work (there may be more) or an attempt finished
    // while it ran; waiting then could mean waiting on a slow receiver while the next event of the
    // finished attempt's object sits due.
    if (inFlight.size >= MAX_IN_FLIGHT || failure) await Promise.race(inFlight);
    else if (claimed.length === 0 && !finishedDuringClaim) await untilFinishedOr(inFlight, deps.claimIntervalMs ?? CLAIM_INTERVAL_MS);
  }
  if (failure) throw failure.error;
  return handled;
}

/** Resolves when an attempt finishes or `ms` have passed. */
async function untilFinishedOr(inFlight: Set<Promise<void>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([...inFlight, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
