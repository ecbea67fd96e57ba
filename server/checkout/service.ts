import { and, eq, gt, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import { batchJson } from '@/db/batch';
import type { Database, Executor } from '@/db/client';
import { checkoutSessions, OPEN_ATTEMPT_STATUSES, orderLines, paymentAttempts } from '@/db/schema';
import { recordAudit } from '../audit/service';
import type { Subject } from '../auth/service';
import { epochSeconds, type Clock } from '../clock';
import type { Config } from '../config';
import type { RequestState, Services } from '../context';
import { spendCardAttempt } from '../rate-limit/card-attempts';
import { ApiError, resourceMissing } from '../errors';
import { newId } from '../ids';
import { clientSecretFor, clientSecretHash, clientSecretMatches, signingSecret } from '../kit/links';
import { createIdempotently, type IdempotentRequest, type KeyClaim } from '../kit/idempotency';
import { normalizeMetadata } from '../kit/metadata';
import type { CheckoutSession, CheckoutSessionList, CreateCheckoutSessionInput, ListCheckoutSessionsQuery } from './schemas';
import { createdWithin, listEnvelope, listPage } from '../kit/list';
import { clampExpiry, isDue, withExpiryApplied, type Lifetime } from '../kit/expiry';
import { expireCheckoutSessions, type SessionExpiryDeps } from './expiry';
import { checkoutSessionView, withAmountDiscount, withAmountDiscounts, type CheckoutSessionRow, type SessionAsShown } from './view';
import { discountedLines } from './discount';
import { resolveDiscountRequest } from '../coupons/discounts';
import { MAX_SESSION_TOTAL, resolveLines } from './lines';
import { sumLines } from '../kit/line-tax';
import { ownedBy, type Scope } from '../kit/scope';
import { LINE_FIELDS, sessionInsert } from './statements';

export interface CheckoutDeps {
  db: Database;
  /** The store's clock (server/clock.ts storeClock): test mode reads the store's test clock. */
  clock: Clock;
  /** Real time: when the events' first deliveries fall due. */
  wallClock: Clock;
  config: Pick<Config, 'publicBaseUrl' | 'authSecret'>;
}

export const CREATE_OPERATION = 'checkout_session.create';

/** expires_at: clamped to [now + 30 minutes, now + 24 hours], default 24 hours. */
const SESSION_LIFETIME: Lifetime = { min: 30 * 60, max: 24 * 60 * 60, default: 24 * 60 * 60 };

/** A session of this store and environment with its expiry applied, or 404 for unknown, foreign and other-environment ids alike. */
export async function findCheckoutSession(deps: Omit<CheckoutDeps, 'wallClock'> & SessionExpiryDeps, scope: Scope, id: string): Promise<CheckoutSessionRow> {
  const [row] = await deps.db
    .select()
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, id), ownedBy(checkoutSessions, scope)))
    .limit(1);
  if (!row) throw resourceMissing('checkout session', id);
  return withExpiryApplied(deps.db, checkoutSessions, row, deps.clock.now(), expireCheckoutSessions(deps));
}

/** GET /checkout/sessions/{id}: never the client secret. */
export async function getCheckoutSession(deps: CheckoutDeps, scope: Scope, id: string): Promise<CheckoutSession> {
  return checkoutSessionView(await withAmountDiscount(deps.db, await findCheckoutSession(deps, scope, id)), deps);
}

/** https is required in live mode; test mode allows http too (the schema checked the rest). */
function assertUrlsAllowed(subject: Subject, input: CreateCheckoutSessionInput): void {
  if (!subject.livemode) return;
  for (const [field, code] of [
    ['success_url', 'invalid_success_url'],
    ['cancel_url', 'invalid_cancel_url'],
  ] as const) {
    const url = input[field];
    if (url !== undefined && !/^https:/i.test(url)) {
      throw new ApiError(code, `\`${field}\` must use https in live mode.`, { param: field });
    }
  }
}

/**
 * POST /checkout/sessions. Without a key: the prices read, then the order, its lines and the
 * session written by one prepared statement (statements.ts prepareSessionInsert). With a key, the same
 * statement claims it too: still one write, and a key already live replays whatever the
 * catalog says now (a price deactivated since still replays its session).
 */
export async function createCheckoutSession(deps: CheckoutDeps, subject: Subject, input: CreateCheckoutSessionInput, idempotency: IdempotentRequest | undefined): Promise<CheckoutSession> {
  assertUrlsAllowed(subject, input);
  const now = deps.clock.now();
  const nowSeconds = epochSeconds(now);
  const sessionId = newId('cs', subject.livemode);
  const orderId = newId('ord', subject.livemode);
  const secret = signingSecret(deps.config);
  const clientSecret = clientSecretFor(secret, sessionId);

  /** Reads the prices; answers the session's writer, which claims the key when `claim` is given. */
  const prepareSession = async (executor: Executor) => {
    const resolved = await resolveLines(executor, subject, input);
    // Only a session asking for a discount reads one: the common creation stays at its round trips.
    const asked = input.discounts?.[0];
    const discount = asked === undefined ? null : await resolveDiscountRequest(executor, subject, asked, { kind: 'lines', productIds: resolved.map((line) => line.productId) }, now);
    const lines = discountedLines(resolved, discount);
    const amounts = sumLines(lines);

    if (amounts.total > MAX_SESSION_TOTAL) {
      throw new ApiError('parameter_invalid', `The session total may be at most ${MAX_SESSION_TOTAL} cents.`, {
        param: input.line_items !== undefined ? 'line_items' : 'quantity',
      });
    }
    return async (claim?: KeyClaim): Promise<CheckoutSessionRow | undefined> => {
      const priceMode = input.price_id !== undefined;
      const params = {
        orderId,
        storeId: subject.storeId,
        livemode: subject.livemode,
        customerEmail: input.customer_email ?? null,
        amountDiscount: lines.reduce((sum, line) => sum + line.amountDiscount, 0),
        amountSubtotal: amounts.subtotal,
        amountTax: amounts.tax,
        amountTotal: amounts.total,
        discount,
        allowPromotionCodes: input.allow_promotion_codes === true,
        createdAt: now,
        sessionId,
        clientSecretHash: clientSecretHash(clientSecret),
        mode: input.amount !== undefined ? 'amount' : priceMode ? 'price' : 'line_items',
        quantity: lines.reduce((sum, line) => sum + line.quantity, 0),
        // Line items mode names no single price or product: its lines are on the order.
        priceId: priceMode ? lines[0]!.priceId : null,
        productId: priceMode ? lines[0]!.productId : null,
        description: input.amount !== undefined ? input.description! : null,
        successUrl: input.success_url ?? null,
        cancelUrl: input.cancel_url ?? null,
        metadata: normalizeMetadata(input.metadata),
        expiresAt: new Date(clampExpiry(nowSeconds, input.expires_at, SESSION_LIFETIME) * 1000),
        taxMode: subject.taxMode,
        lines: batchJson(
          orderLines,
          LINE_FIELDS,
          lines.map((line, position) => ({
            id: `${orderId}_l${position}`,
            position,
            productId: line.productId,
            priceId: line.priceId,
            description: line.description,
            quantity: line.quantity,
            unitAmount: line.unitAmount,
            amountDiscount: line.amountDiscount,
            amountSubtotal: line.subtotal,
            amountTax: line.tax,
            amountTotal: line.total,
            taxRate: line.taxRate,
            taxInclusive: line.taxInclusive,
            taxCategory: line.taxCategory,
            hasLicense: line.hasLicense,
          })),
        ),
        ...claim,
      };
      const [row] = await sessionInsert(executor, claim === undefined ? 0 : 1).execute(params);
      return row;
    };
  };

  const { result, replayed } = await createIdempotently({
    db: deps.db,
    scope: { storeId: subject.storeId, livemode: subject.livemode },
    operation: CREATE_OPERATION,
    request: idempotency,
    orderedFields: ['metadata'],
    now,
    resourceId: sessionId,
    claiming: {
      table: checkoutSessions,
      prepare: prepareSession,
      replayRow: (row) => withExpiryApplied(deps.db, checkoutSessions, row, now, expireCheckoutSessions(deps)),
    },
  });
  // The client secret is returned by the creation and by its replay, never by reads.
  // A replay answers the original session, whose secret derives from its own id.
  // A discounted session's amount is its order's: read back (no read without a discount).
  return checkoutSessionView(await withAmountDiscount(deps.db, result), deps, { clientSecret: replayed ? clientSecretFor(secret, result.id) : clientSecret });
}

/**
 * POST /checkout/sessions/{id}/confirm, checked in order: key, client secret, environment,
 * session state, then `three_d_secure_required`. The session is looked up within the key's store
 * across both environments, so a matching secret of the other environment answers
 * `environment_mismatch`; an unknown id answers like a wrong secret, so the endpoint never tells
 * which sessions exist. Embedded confirmation always ends in
 * `three_d_secure_required`: the card is entered on the hosted page.
 */
export async function confirmCheckoutSession(
  deps: CheckoutDeps & Pick<Services, 'rateLimits'>,
  subject: Subject,
  request: Pick<RequestState, 'ip' | 'method' | 'path'>,
  id: string,
  clientSecret: string,
): Promise<never> {
  // A card attempt of its address, as a hosted form's post is.
  await spendCardAttempt(deps.rateLimits, request.ip);
  const [row] = await deps.db
    .select()
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.storeId, subject.storeId)))
    .limit(1);
  // Every authentication failure is audited, these two included.
  const refuse = async (error: ApiError): Promise<never> => {
    await recordAudit(deps.db, { action: 'auth.failed', code: error.code, storeId: subject.storeId, livemode: subject.livemode, ip: request.ip, method: request.method, path: request.path });
    throw error;
  };
  if (!row || !clientSecretMatches(clientSecret, row.clientSecretHash)) {
    return refuse(new ApiError('invalid_client_secret', 'The client secret does not match this checkout session.', { param: 'client_secret' }));
  }
  if (row.livemode !== subject.livemode) {
    return refuse(new ApiError('environment_mismatch', 'This session belongs to the other mode: use the publishable key of the same mode (test or live) as the session.'));
  }
  const session = await withExpiryApplied(deps.db, checkoutSessions, row, deps.clock.now(), expireCheckoutSessions(deps));
  if (session.status === 'expired') throw new ApiError('session_expired', 'This checkout session has expired. Create a new one.');
  if (session.status === 'complete') throw new ApiError('session_already_complete', 'This checkout session is already complete.');
  if (session.paymentStatus === 'failed') {
    throw new ApiError('session_payment_failed', 'A payment attempt on this session was declined; it cannot be retried. Create a new session.');
  }
  throw new ApiError('three_d_secure_required', 'This payment needs 3-D Secure authentication: send the customer to the session’s hosted `url` to enter the card there.');
}

/** Sessions of one status as of `now`: an open session past its deadline counts as expired. */
function hasStatus(status: CheckoutSessionRow['status'], now: Date): SQL {
  const open = eq(checkoutSessions.status, 'open');
  if (status === 'open') return and(open, gt(checkoutSessions.expiresAt, now))!;
  if (status === 'expired') return or(eq(checkoutSessions.status, 'expired'), and(open, lte(checkoutSessions.expiresAt, now)))!;
  return eq(checkoutSessions.status, status);
}

/**
 * GET /checkout/sessions: newest first, filtered; never a client secret. A session past its
 * deadline reads as expired, as GET /checkout/sessions/{id} answers it; the write is left to
 * that read and to the due job, so a list stays a read.
 */
export async function listCheckoutSessions(deps: CheckoutDeps, scope: Scope, query: ListCheckoutSessionsQuery): Promise<CheckoutSessionList> {
  const now = deps.clock.now();
  const { rows, hasMore } = await listPage(deps.db, checkoutSessions, {
    scope,
    page: query,
    kind: 'checkout session',
    where: [
      query.status === undefined ? undefined : hasStatus(query.status, now),
      query.payment_status === undefined ? undefined : eq(checkoutSessions.paymentStatus, query.payment_status),
      query.customer_email === undefined ? undefined : sql`lower(${checkoutSessions.customerEmail}) = ${query.customer_email}`,
      ...createdWithin(checkoutSessions.createdAt, query),
    ],
  });
  const asOfNow = (row: SessionAsShown): SessionAsShown => (isDue(row, now) ? { ...row, status: 'expired' } : row);
  return listEnvelope(
    '/api/v1/checkout/sessions',
    scope,
    (await withAmountDiscounts(deps.db, rows)).map((row) => checkoutSessionView(asOfNow(row), deps)),
    hasMore,
  );
}

/**
 * POST /checkout/sessions/{id}/expire. The session row is locked as a payment attempt locks it
 * (payments/service.ts beginAttempt), so of a payment and an expiry one goes first and the other
 * sees its outcome. An attempt still open at the gateway (a 3-D Secure challenge, an unanswered
 * charge) may yet be paid, so the session is not expired under it.
 */
export async function expireCheckoutSession(deps: CheckoutDeps, scope: Scope, id: string): Promise<CheckoutSession> {
  const row = await deps.db.transaction(async (tx) => {
    const [session] = await tx
      .select()
      .from(checkoutSessions)
      .where(and(eq(checkoutSessions.id, id), ownedBy(checkoutSessions, scope)))
      .for('update');
    if (!session) throw resourceMissing('checkout session', id);
    if (session.status === 'expired') return session;
    if (session.status === 'complete') throw new ApiError('session_already_complete', 'This checkout session is already complete: a paid session cannot expire.');
    const [open] = await tx
      .select({ id: paymentAttempts.id })
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.checkoutSessionId, session.id), ownedBy(paymentAttempts, scope), inArray(paymentAttempts.status, [...OPEN_ATTEMPT_STATUSES])))
      .limit(1);
    if (open) {
      throw new ApiError(
        'session_payment_in_progress',
        'A payment of this checkout session is still in progress (a 3-D Secure challenge or a charge awaiting the gateway). Try again once it has settled.',
      );
    }
    const [expired] = await expireCheckoutSessions(deps)(tx, eq(checkoutSessions.id, session.id));
    return expired!;
  });
  return checkoutSessionView(await withAmountDiscount(deps.db, row), deps);
}
