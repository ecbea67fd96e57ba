import { and, eq, gt, isNotNull, isNull, lte, type SQL } from 'drizzle-orm';
import type { Database, Executor, Transaction } from '@/db/client';
import { portalSessions, type PortalScope } from '@/db/schema';
import { actorAudit, auditParams, recordAudit, type Actor } from '../audit/service';
import { createIdempotently, type IdempotentRequest, type KeyClaim } from '../kit/idempotency';
import { normalizeMetadata } from '../kit/metadata';
import { epochSeconds, type Clock } from '../clock';
import type { Config } from '../config';
import { resourceMissing } from '../errors';
import { clampExpiry, type Lifetime } from '../kit/expiry';
import { newId } from '../ids';
import type { CreatePortalSessionInput, ListPortalSessionsQuery, PortalSession, PortalSessionList } from './schemas';
import { createdWithin, listEnvelope, listPage } from '../kit/list';
import { decryptPortalToken, encryptPortalToken, newPortalToken, portalTokenHash, portalUrl } from './token';
import { ownedBy, type Scope } from '../kit/scope';
import { portalInsert, TARGET_CUSTOMER_BY_EMAIL, TARGET_CUSTOMER_BY_ID, TARGET_ORDER, TARGET_SUBSCRIPTION, targetRead } from './statements';
import { createdEventParams, recordEvent, type EventTimes } from '../webhooks/events';

export type PortalSessionRow = typeof portalSessions.$inferSelect;

export interface PortalDeps {
  db: Database;
  /** The store's clock (server/clock.ts storeClock): expiry follows the test clock in test mode. */
  clock: Clock;
  /** Real time: when the events' first deliveries fall due. */
  wallClock: Clock;
  config: Pick<Config, 'publicBaseUrl' | 'authSecret'>;
  /** Who makes the change: every change is audited with it. */
  actor: Actor;
}

export const CREATE_OPERATION = 'portal_session.create';

/** expires_at: clamped to [now + 5 minutes, now + 30 days], default 24 hours. */
const PORTAL_LIFETIME: Lifetime = { min: 5 * 60, max: 30 * 24 * 60 * 60, default: 24 * 60 * 60 };

/** Revoked is permanent and wins; otherwise expired once the store clock reaches expires_at. */
export function portalStatus(row: Pick<PortalSessionRow, 'revokedAt' | 'expiresAt'>, now: Date): PortalSession['status'] {
  if (row.revokedAt !== null) return 'revoked';
  return now.getTime() >= row.expiresAt.getTime() ? 'expired' : 'active';
}

/** The API shape. `url` is left out entirely unless given (absent, not null). */
export function portalSessionView(row: PortalSessionRow, now: Date, url?: string): PortalSession {
  return {
    id: row.id,
    object: 'portal.session',
    status: portalStatus(row, now),
    scope: row.scope,
    livemode: row.livemode,
    customer_id: row.customerId,
    order_id: row.orderId,
    subscription_id: row.subscriptionId,
    ...(url === undefined ? {} : { url }),
    metadata: row.metadata,
    access_count: row.accessCount,
    last_accessed_at: row.lastAccessedAt === null ? null : epochSeconds(row.lastAccessedAt),
    created: epochSeconds(row.createdAt),
    expires_at: epochSeconds(row.expiresAt),
  };
}

interface Target {
  scope: PortalScope;
  customerId: string | null;
  orderId: string | null;
  subscriptionId: string | null;
}

/**
 * What the selector names, in this store and environment. A deleted customer is never a target,
 * neither directly nor through their order or subscription: deleting a customer revokes their
 * portals, and a new link must not bring the data back.
 */
async function resolveTarget(executor: Executor, subject: Scope, input: CreatePortalSessionInput): Promise<Target> {
  const scope = { storeId: subject.storeId, livemode: subject.livemode };
  if (input.customer_id !== undefined || input.customer_email !== undefined) {
    const byId = input.customer_id !== undefined;
    const [row] = await targetRead(executor, byId ? TARGET_CUSTOMER_BY_ID : TARGET_CUSTOMER_BY_EMAIL).execute({
      ...scope,
      target: byId ? input.customer_id! : input.customer_email!.toLowerCase(),
    });
    if (!row) throw resourceMissing('customer', '', byId ? 'customer_id' : 'customer_email');
    return { scope: 'customer', customerId: row.id, orderId: null, subscriptionId: null };
  }
  if (input.order_id !== undefined) {
    const [row] = await targetRead(executor, TARGET_ORDER).execute({ ...scope, target: input.order_id });
    if (!row || row.customerDeletedAt !== null) throw resourceMissing('order', input.order_id, 'order_id');
    return { scope: 'order', customerId: row.customerId, orderId: row.id, subscriptionId: null };
  }
  const [row] = await targetRead(executor, TARGET_SUBSCRIPTION).execute({ ...scope, target: input.subscription_id! });
  if (!row || row.customerDeletedAt !== null) throw resourceMissing('subscription', input.subscription_id!, 'subscription_id');
  return { scope: 'subscription', customerId: row.customerId, orderId: null, subscriptionId: row.id };
}

/**
 * POST /portal/sessions: the target read, then the session and its event written by one
 * statement that, with a key, claims it too. The URL is returned by the create; a replay returns
 * it only while the link is active, from the encrypted copy kept for that purpose
 * (server/portal/token.ts).
 */
export async function createPortalSession(deps: PortalDeps, subject: Scope, input: CreatePortalSessionInput, idempotency: IdempotentRequest | undefined): Promise<PortalSession> {
  const now = deps.clock.now();
  const id = newId('portal', subject.livemode);
  const token = newPortalToken();

  /** Reads the target; answers the session's writer, which claims the key when `claim` is given. */
  const prepareSession = async (executor: Executor) => {
    const target = await resolveTarget(executor, subject, input);
    return async (claim?: KeyClaim): Promise<PortalSession | undefined> => {
      // The row as the statement writes it: the event's object is its view.
      const row: PortalSessionRow = {
        id,
        storeId: subject.storeId,
        livemode: subject.livemode,
        ...target,
        tokenHash: portalTokenHash(token),
        tokenCiphertext: idempotency === undefined ? null : encryptPortalToken(deps.config, id, token),
        metadata: normalizeMetadata(input.metadata),
        accessCount: 0,
        lastAccessedAt: null,
        revokedAt: null,
        createdAt: now,
        expiresAt: new Date(clampExpiry(epochSeconds(now), input.expires_at, PORTAL_LIFETIME) * 1000),
      };
      const event = createdEventParams({
        storeId: subject.storeId,
        livemode: subject.livemode,
        type: 'portal.session.created',
        object: portalSessionView(row, now),
        now,
        wallNow: deps.wallClock.now(),
      });
      const audit = auditParams(deps.actor, {
        portal_session: id,
        customer: target.customerId,
        ...(target.orderId === null ? {} : { order: target.orderId }),
        ...(target.subscriptionId === null ? {} : { subscription: target.subscriptionId }),
      });
      const [written] = await portalInsert(executor, claim === undefined ? 0 : 1).execute(Object.assign({} as Record<string, unknown>, claim, row, event, audit));
      return written && portalSessionView(written, now, portalUrl(deps.config.publicBaseUrl, token));
    };
  };

  const { result } = await createIdempotently({
    db: deps.db,
    scope: { storeId: subject.storeId, livemode: subject.livemode },
    operation: CREATE_OPERATION,
    request: idempotency,
    orderedFields: ['metadata'],
    now,
    resourceId: id,
    claiming: {
      table: portalSessions,
      prepare: prepareSession,
      replayRow: async (row) => {
        const sealed = portalStatus(row, now) === 'active' ? row.tokenCiphertext : null;
        const original = sealed === null ? undefined : decryptPortalToken(deps.config, row.id, sealed);
        return portalSessionView(row, now, original === undefined ? undefined : portalUrl(deps.config.publicBaseUrl, original));
      },
    },
  });
  return result;
}

/** The session of the scope (and of that customer, when given). */
const sessionOf = (scope: Scope, id: string, customerId?: string) =>
  and(eq(portalSessions.id, id), ownedBy(portalSessions, scope), customerId === undefined ? undefined : eq(portalSessions.customerId, customerId))!;

async function findPortalSession(db: Executor, scope: Scope, id: string, customerId?: string): Promise<PortalSessionRow> {
  const [row] = await db
    .select()
    .from(portalSessions)
    .where(sessionOf(scope, id, customerId))
    .limit(1);
  if (!row) throw resourceMissing('portal session', id);
  return row;
}

/** GET /portal/sessions/{id}: the state, never the URL. */
export async function getPortalSession(deps: Pick<PortalDeps, 'db' | 'clock'>, scope: Scope, id: string): Promise<PortalSession> {
  return portalSessionView(await findPortalSession(deps.db, scope, id), deps.clock.now());
}

/**
 * DELETE /portal/sessions/{id}: permanent. The page checks `revoked_at` on every
 * request, so the link stops resolving on the next one. Revoking twice keeps the first time and
 * is not audited again. `customerId` limits it to that customer's sessions (the customer's page).
 */
export async function revokePortalSession(deps: Pick<PortalDeps, 'db' | 'clock' | 'wallClock' | 'actor'>, scope: Scope, id: string, customerId?: string): Promise<PortalSession> {
  const times = { now: deps.clock.now(), wallNow: deps.wallClock.now() };
  const [revoked] = await deps.db.transaction(async (tx) => {
    const rows = await revokePortalSessions(tx, scope, sessionOf(scope, id, customerId), times);
    for (const row of rows) await recordAudit(tx, actorAudit(scope, deps.actor, 'portal_session.revoke', { portal_session: row.id, customer: row.customerId }));
    return rows;
  });
  return portalSessionView(revoked ?? (await findPortalSession(deps.db, scope, id, customerId)), times.now);
}

/** Revokes the matching sessions not revoked yet, each with its `portal.session.revoked` event. */
async function revokePortalSessions(tx: Transaction, scope: Scope, which: SQL, times: EventTimes): Promise<PortalSessionRow[]> {
  const revoked = await tx
    .update(portalSessions)
    .set({ revokedAt: times.now, tokenCiphertext: null })
    .where(and(which, isNull(portalSessions.revokedAt)))
    .returning();
  for (const row of revoked) {
    await recordEvent(tx, { storeId: scope.storeId, livemode: scope.livemode, type: 'portal.session.revoked', object: portalSessionView(row, times.now), ...times });
  }
  return revoked;
}

/** Deleting a customer revokes their portals at once; called inside the delete's transaction. */
export async function revokeCustomerPortalSessions(tx: Transaction, scope: Scope, customerId: string, times: EventTimes): Promise<void> {
  await revokePortalSessions(tx, scope, and(eq(portalSessions.customerId, customerId), ownedBy(portalSessions, scope))!, times);
}

/** The rows of one status as of `now`, as portalStatus derives it. */
function hasStatus(status: PortalSession['status'], now: Date): SQL {
  if (status === 'revoked') return isNotNull(portalSessions.revokedAt);
  const deadline = status === 'expired' ? lte(portalSessions.expiresAt, now) : gt(portalSessions.expiresAt, now);
  return and(isNull(portalSessions.revokedAt), deadline)!;
}

/** GET /portal/sessions: newest first, filtered; never a URL. */
export async function listPortalSessions(deps: Pick<PortalDeps, 'db' | 'clock'>, scope: Scope, query: ListPortalSessionsQuery): Promise<PortalSessionList> {
  const now = deps.clock.now();
  const { rows, hasMore } = await listPage(deps.db, portalSessions, {
    scope,
    page: query,
    kind: 'portal session',
    where: [
      query.status === undefined ? undefined : hasStatus(query.status, now),
      query.scope === undefined ? undefined : eq(portalSessions.scope, query.scope),
      query.customer_id === undefined ? undefined : eq(portalSessions.customerId, query.customer_id),
      ...createdWithin(portalSessions.createdAt, query),
    ],
  });
  return listEnvelope(
    '/api/v1/portal/sessions',
    scope,
    rows.map((row) => portalSessionView(row, now)),
    hasMore,
  );
}
