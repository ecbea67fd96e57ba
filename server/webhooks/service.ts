/**
 * Webhook endpoints: create (the secret is answered there and when it is rolled), list,
 * retrieve, update, delete, and each endpoint's delivery log. Every lookup is scoped by store
 * and environment in the same WHERE, so a foreign, other-environment or unknown id is the same 404.
 */
import { and, asc, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { lockUntilCommit, type Database } from '@/db/client';
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, webhookEvents } from '@/db/schema';
import { actorAudit, recordAudit, type Actor } from '../audit/service';
import { epochSeconds, type Clock } from '../clock';
import type { Config } from '../config';
import { createIdempotently, type IdempotentRequest } from '../kit/idempotency';
import { ApiError, resourceMissing } from '../errors';
import { newId } from '../ids';
import { endpointUrlProblem, type HostResolver } from './destinations';
import { newDeliveryId, type EventType } from './events';
import { requestDeliveryRun } from './jobs';
import { endpointSecret } from './secrets';
import type {
  CreatedWebhookEndpoint,
  CreateEndpointInput,
  DeletedWebhookEndpoint,
  ListDeliveriesQuery,
  ListEndpointsQuery,
  UpdateEndpointInput,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
} from './schemas';
import { ownedBy, type Scope } from '../kit/scope';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

export interface EndpointDeps {
  db: Database;
  /** The store's clock: an endpoint's `created`. */
  clock: Clock;
  config: Pick<Config, 'authSecret' | 'maxWebhookEndpointsPerStore' | 'webhooksAllowPrivate'>;
  resolveHost?: HostResolver;
  /** Who makes the change: every change is audited with it. */
  actor: Actor;
}

function endpointView(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    events: row.events as EventType[] | null,
    livemode: row.livemode,
    disabled: row.disabled,
    previous_secret_expires_at: row.previousSecretExpiresAt ? epochSeconds(row.previousSecretExpiresAt) : null,
    created: epochSeconds(row.createdAt),
  };
}

async function checkEndpointUrl(deps: Pick<EndpointDeps, 'config' | 'resolveHost'>, url: string, subject: Scope): Promise<void> {
  const problem = await endpointUrlProblem(url, { livemode: subject.livemode, allowPrivate: deps.config.webhooksAllowPrivate }, deps.resolveHost);
  if (problem) throw new ApiError('parameter_invalid', `Invalid url: ${problem}.`, { param: 'url' });
}

/** A live endpoint of this store and environment. */
function activeEndpoint(scope: Scope, id: string) {
  return and(eq(webhookEndpoints.id, id), ownedBy(webhookEndpoints, scope), isNull(webhookEndpoints.deletedAt));
}

const CREATE_OPERATION = 'webhook_endpoint.create';

/** Each listed type once, in the order given; null (every type) when there is no list. */
function distinctTypes(events: EventType[] | null | undefined): EventType[] | null {
  return events ? [...new Set(events)] : null;
}

/**
 * POST /webhook_endpoints: answers the secret (as only roll_secret does besides). With an `Idempotency-Key` a
 * retried create (e.g. after a lost answer) replays the first endpoint and its secret, which can
 * be derived again, instead of registering a second endpoint that would get every event twice.
 */
export async function createEndpoint(deps: EndpointDeps, subject: Scope, input: CreateEndpointInput, idempotency: IdempotentRequest | undefined): Promise<CreatedWebhookEndpoint> {
  await checkEndpointUrl(deps, input.url, subject);
  const now = deps.clock.now();
  const id = newId('we', subject.livemode);
  const { result } = await createIdempotently({
    db: deps.db,
    scope: { storeId: subject.storeId, livemode: subject.livemode },
    operation: CREATE_OPERATION,
    request: idempotency,
    now,
    resourceId: id,
    create: (executor) =>
      // A savepoint inside the idempotency key's transaction, else a transaction of its own.
      executor.transaction(async (tx) => {
        // Serialises creates of one store and environment so the limit holds under concurrency.
        await lockUntilCommit(tx, `webhook_endpoints:${subject.storeId}:${subject.livemode}`);
        const [active] = await tx
          .select({ total: count() })
          .from(webhookEndpoints)
          .where(and(ownedBy(webhookEndpoints, subject), isNull(webhookEndpoints.deletedAt)));
        const max = deps.config.maxWebhookEndpointsPerStore;
        if ((active?.total ?? 0) >= max) {
          throw new ApiError(
            'webhook_endpoint_limit_reached',
            `This store has reached the limit of ${max} webhook endpoints in ${subject.livemode ? 'live' : 'test'} mode. Delete endpoints you no longer use.`,
          );
        }
        const [row] = await tx
          .insert(webhookEndpoints)
          .values({
            id,
            storeId: subject.storeId,
            livemode: subject.livemode,
            url: input.url,
            events: distinctTypes(input.events),
            createdAt: now,
          })
          .returning();
        await recordAudit(tx, actorAudit(subject, deps.actor, 'webhook_endpoint.create', { webhook_endpoint: id, url: row!.url, events: endpointView(row!).events }));
        return row!;
      }),
    async replay(firstId) {
      // The first answer again, also when the endpoint has been deleted since.
      const [row] = await deps.db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.id, firstId), ownedBy(webhookEndpoints, subject)));
      return row!;
    },
  });
  return { ...endpointView(result), secret: endpointSecret(deps.config, result.id) };
}

export async function getEndpoint(db: Database, subject: Scope, id: string): Promise<WebhookEndpoint> {
  const [row] = await db.select().from(webhookEndpoints).where(activeEndpoint(subject, id)).limit(1);
  if (!row) throw resourceMissing('webhook endpoint', id);
  return endpointView(row);
}

/**
 * PATCH /webhook_endpoints/{id} (and its POST alias): the fields given, validated as on create.
 * Disabled, its deliveries wait pending; enabled again, the worker is woken for its backlog.
 */
export async function updateEndpoint(deps: Pick<EndpointDeps, 'db' | 'config' | 'resolveHost' | 'actor'>, subject: Scope, id: string, input: UpdateEndpointInput): Promise<WebhookEndpoint> {
  if (input.url !== undefined) await checkEndpointUrl(deps, input.url, subject);
  const changes: Partial<typeof webhookEndpoints.$inferInsert> = {};
  if (input.url !== undefined) changes.url = input.url;
  if (input.events !== undefined) changes.events = distinctTypes(input.events);
  if (input.disabled !== undefined) changes.disabled = input.disabled;
  if (Object.keys(changes).length === 0) return getEndpoint(deps.db, subject, id);
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx.update(webhookEndpoints).set(changes).where(activeEndpoint(subject, id)).returning();
    if (!updated) throw resourceMissing('webhook endpoint', id);
    await recordAudit(tx, actorAudit(subject, deps.actor, 'webhook_endpoint.update', { webhook_endpoint: id, ...input }));
    return updated;
  });
  // After the commit, so the worker sees the endpoint's backlog.
  if (input.disabled === false) requestDeliveryRun();
  return endpointView(row);
}

/**
 * POST /webhook_endpoints/{id}/roll_secret: the next generation's secret signs from now on;
 * the one it replaces also signs until `expiresIn` seconds from now on the store's clock (its
 * test clock in test mode, like every test-mode time), and any older one no longer does.
 */
export async function rollEndpointSecret(deps: Pick<EndpointDeps, 'db' | 'config' | 'actor'>, subject: Scope, id: string, expiresIn: number, storeNow: Date): Promise<CreatedWebhookEndpoint> {
  const row = await deps.db.transaction(async (tx) => {
    const [rolled] = await tx
      .update(webhookEndpoints)
      .set({
        secretGeneration: sql`${webhookEndpoints.secretGeneration} + 1`,
        previousSecretExpiresAt: expiresIn > 0 ? new Date(storeNow.getTime() + expiresIn * 1000) : null,
      })
      .where(activeEndpoint(subject, id))
      .returning();
    if (!rolled) throw resourceMissing('webhook endpoint', id);
    await recordAudit(tx, actorAudit(subject, deps.actor, 'webhook_endpoint.roll_secret', { webhook_endpoint: id, expires_in: expiresIn }));
    return rolled;
  });
  return { ...endpointView(row), secret: endpointSecret(deps.config, row.id, row.secretGeneration) };
}

const cursorEndpoint = alias(webhookEndpoints, 'cursor_endpoint');

/** GET /webhook_endpoints: newest first, then by id; `starting_after` continues after that endpoint. */
export async function listEndpoints(db: Database, subject: Scope, query: ListEndpointsQuery): Promise<WebhookEndpointList> {
  const conditions = [ownedBy(webhookEndpoints, subject), isNull(webhookEndpoints.deletedAt)];
  if (query.starting_after !== undefined) {
    const [cursor] = await db
      .select({ createdAt: cursorEndpoint.createdAt, id: cursorEndpoint.id })
      .from(cursorEndpoint)
      .where(and(eq(cursorEndpoint.id, query.starting_after), ownedBy(cursorEndpoint, subject)));
    if (!cursor) throw resourceMissing('webhook endpoint', query.starting_after, 'starting_after');
    conditions.push(sql`(${webhookEndpoints.createdAt}, ${webhookEndpoints.id}) < (${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id})`);
  }
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(and(...conditions))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id))
    .limit(query.limit + 1);
  return {
    object: 'list',
    data: rows.slice(0, query.limit).map(endpointView),
    has_more: rows.length > query.limit,
    url: '/api/v1/webhook_endpoints',
    livemode: subject.livemode,
  };
}

/**
 * DELETE /webhook_endpoints/{id}: soft delete (the delivery log stays). Its pending deliveries
 * are given up in the same transaction, so no worker sends another one; an attempt already in
 * flight finishes but cannot put its delivery back to pending (server/webhooks/delivery.ts).
 */
export async function deleteEndpoint(deps: { db: Database; wallClock: Clock; actor: Actor }, subject: Scope, id: string): Promise<DeletedWebhookEndpoint> {
  const wallNow = deps.wallClock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await tx.update(webhookEndpoints).set({ deletedAt: wallNow }).where(activeEndpoint(subject, id)).returning({ id: webhookEndpoints.id });
    if (!row) throw resourceMissing('webhook endpoint', id);
    await tx
      .update(webhookDeliveries)
      .set({ status: 'failed', nextAttemptAt: null, lastError: 'The endpoint was deleted.', completedAt: wallNow })
      .where(and(eq(webhookDeliveries.endpointId, row.id), eq(webhookDeliveries.status, 'pending')));
    await recordAudit(tx, actorAudit(subject, deps.actor, 'webhook_endpoint.delete', { webhook_endpoint: row.id }));
    return { id: row.id, object: 'webhook_endpoint', deleted: true };
  });
}

const cursorDelivery = alias(webhookDeliveries, 'cursor_delivery');

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Deliveries with their event's type, in the log's order: newest event first, then newest delivery. */
async function loadDeliveries(db: Database, where: SQL | undefined, limit?: number): Promise<{ delivery: DeliveryRow; eventType: string }[]> {
  const query = db
    .select({ delivery: webhookDeliveries, eventType: webhookEvents.type })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(where)
    .orderBy(desc(webhookDeliveries.sequence), desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id));
  return limit === undefined ? query : query.limit(limit);
}

/** The delivery objects of these rows, each with its attempts (one query for all of them). */
async function deliveryViews(db: Database, rows: { delivery: DeliveryRow; eventType: string }[]): Promise<WebhookDelivery[]> {
  const attempts =
    rows.length === 0
      ? []
      : await db
          .select()
          .from(webhookDeliveryAttempts)
          .where(
            inArray(
              webhookDeliveryAttempts.deliveryId,
              rows.map((row) => row.delivery.id),
            ),
          )
          .orderBy(asc(webhookDeliveryAttempts.attempt));
  return rows.map(({ delivery, eventType }) =>
    deliveryView(
      delivery,
      eventType,
      attempts.filter((attempt) => attempt.deliveryId === delivery.id),
    ),
  );
}

function deliveryView(delivery: DeliveryRow, eventType: string, attempts: (typeof webhookDeliveryAttempts.$inferSelect)[]): WebhookDelivery {
  return {
    id: delivery.id,
    object: 'webhook_delivery',
    event_id: delivery.eventId,
    event_type: eventType as EventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_response_status: delivery.lastResponseStatus,
    last_error: delivery.lastError,
    next_attempt_at: delivery.status === 'pending' && delivery.nextAttemptAt ? epochSeconds(delivery.nextAttemptAt) : null,
    created: epochSeconds(delivery.createdAt),
    attempt_log: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      attempted_at: epochSeconds(attempt.attemptedAt),
      response_status: attempt.responseStatus,
      error: attempt.error,
      duration_ms: attempt.durationMs,
    })),
  };
}

/**
 * GET /webhook_endpoints/{id}/deliveries: the delivery log, newest event first (a resend after
 * the deliveries of its event before it), each with its attempts; filtered by status and event.
 */
export async function listDeliveries(db: Database, subject: Scope, endpointId: string, query: ListDeliveriesQuery): Promise<WebhookDeliveryList> {
  const [endpoint] = await db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(activeEndpoint(subject, endpointId));
  if (!endpoint) throw resourceMissing('webhook endpoint', endpointId);
  const conditions = [eq(webhookDeliveries.endpointId, endpoint.id)];
  if (query.status !== undefined) conditions.push(eq(webhookDeliveries.status, query.status));
  if (query.event_id !== undefined) conditions.push(eq(webhookDeliveries.eventId, query.event_id));
  if (query.starting_after !== undefined) {
    const [cursor] = await db
      .select({ sequence: cursorDelivery.sequence, createdAt: cursorDelivery.createdAt, id: cursorDelivery.id })
      .from(cursorDelivery)
      .where(and(eq(cursorDelivery.id, query.starting_after), eq(cursorDelivery.endpointId, endpoint.id)));
    if (!cursor) throw resourceMissing('webhook delivery', query.starting_after, 'starting_after');
    conditions.push(sql`(${webhookDeliveries.sequence}, ${webhookDeliveries.createdAt}, ${webhookDeliveries.id}) < (${cursor.sequence}, ${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id})`);
  }
  const rows = await loadDeliveries(db, and(...conditions), query.limit + 1);
  return {
    object: 'list',
    data: await deliveryViews(db, rows.slice(0, query.limit)),
    has_more: rows.length > query.limit,
    url: `/api/v1/webhook_endpoints/${endpoint.id}/deliveries`,
    livemode: subject.livemode,
  };
}

/**
 * Whether the endpoint already has the event: one of its deliveries of it succeeded, or, given a
 * delivery of its log, that one did. Undefined when the endpoint is not the store's (or deleted)
 * or that delivery is not one of the event to it.
 */
export async function eventReceived(db: Database, subject: Scope, endpointId: string, eventId: string, deliveryId?: string): Promise<boolean | undefined> {
  const [row] = await db
    .select({
      deliveries: count(webhookDeliveries.id),
      succeeded: sql<boolean>`coalesce(bool_or(${webhookDeliveries.status} = 'succeeded'), false)`,
    })
    .from(webhookEndpoints)
    .leftJoin(
      webhookDeliveries,
      and(eq(webhookDeliveries.endpointId, webhookEndpoints.id), eq(webhookDeliveries.eventId, eventId), deliveryId === undefined ? undefined : eq(webhookDeliveries.id, deliveryId)),
    )
    .where(activeEndpoint(subject, endpointId))
    .groupBy(webhookEndpoints.id);
  if (!row || (deliveryId !== undefined && row.deliveries === 0)) return undefined;
  return row.succeeded;
}

export interface ResendDeps {
  db: Database;
  /** The store's clock: how long the Idempotency-Key is kept. */
  clock: Clock;
  /** A resend is due at once, on the wall clock every delivery runs on. */
  wallClock: Clock;
  /** Who asks for the resend: it is audited with it. */
  actor: Actor;
}

const RESEND_OPERATION = 'event.resend';

/**
 * POST /events/{id}/resend: a new delivery of a past event to one endpoint, under the event's id
 * as `webhook-id`. It is a replay, so the object's ordering neither holds it back nor waits on
 * it. The answer is the delivery as created (pending, not yet attempted), whatever the worker
 * has done with it since. With an `Idempotency-Key` a retried request answers that first answer
 * again instead of sending the event once more; the lookups run inside the key's transaction, so
 * a refused request leaves the key unused.
 */
export async function resendEvent(deps: ResendDeps, subject: Scope, eventId: string, endpointId: string, idempotency: IdempotentRequest | undefined): Promise<WebhookDelivery> {
  // The event is named in the path: the same key and body for another event is another request.
  if (idempotency) idempotency.body = { event: eventId, body: idempotency.body };
  const wallNow = deps.wallClock.now();
  const id = newDeliveryId();
  const { result } = await createIdempotently({
    db: deps.db,
    scope: { storeId: subject.storeId, livemode: subject.livemode },
    operation: RESEND_OPERATION,
    request: idempotency,
    now: deps.clock.now(),
    resourceId: id,
    create: (executor) =>
      executor.transaction(async (tx) => {
        const [event] = await tx
          .select({ id: webhookEvents.id, type: webhookEvents.type, objectId: webhookEvents.objectId, sequence: webhookEvents.sequence })
          .from(webhookEvents)
          .where(and(eq(webhookEvents.id, eventId), ownedBy(webhookEvents, subject)));
        if (!event) throw resourceMissing('event', eventId);
        // Shared lock: a delete committing meanwhile cannot leave this delivery pending behind it.
        const [endpoint] = await tx.select({ id: webhookEndpoints.id, disabled: webhookEndpoints.disabled }).from(webhookEndpoints).where(activeEndpoint(subject, endpointId)).for('share');
        if (!endpoint) throw resourceMissing('webhook endpoint', endpointId, 'endpoint_id');
        if (endpoint.disabled) {
          throw new ApiError('webhook_endpoint_disabled', 'This webhook endpoint is disabled: enable it (disabled: false) before resending events to it.', {
            param: 'endpoint_id',
          });
        }
        const [delivery] = await tx
          .insert(webhookDeliveries)
          .values({
            id,
            eventId: event.id,
            endpointId: endpoint.id,
            storeId: subject.storeId,
            livemode: subject.livemode,
            objectId: event.objectId,
            sequence: event.sequence,
            resend: true,
            status: 'pending',
            nextAttemptAt: wallNow,
            createdAt: wallNow,
          })
          .returning();
        await recordAudit(tx, actorAudit(subject, deps.actor, 'event.resend', { event: eventId, webhook_endpoint: endpointId, delivery: id }));
        return resentDeliveryView(delivery!, event.type);
      }),
    async replay(firstId) {
      const [first] = await loadDeliveries(deps.db, and(eq(webhookDeliveries.id, firstId), ownedBy(webhookDeliveries, subject)));
      return resentDeliveryView(first!.delivery, first!.eventType);
    },
  });
  requestDeliveryRun();
  return result;
}

/** A resent delivery as its create answered it: pending, due at once, no attempt yet. */
function resentDeliveryView(delivery: DeliveryRow, eventType: string): WebhookDelivery {
  const created = { ...delivery, status: 'pending' as const, attempts: 0, lastResponseStatus: null, lastError: null, nextAttemptAt: delivery.createdAt };
  return deliveryView(created, eventType, []);
}
