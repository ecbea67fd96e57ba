/**
 * Webhook endpoints: create (the secret is answered once), list, retrieve, delete,
 * and each endpoint's delivery log. Every lookup is scoped by store and environment in the same
 * WHERE, so a foreign, other-environment or unknown id is the same 404.
 */
import { and, asc, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { lockUntilCommit, type Database } from '@/db/client';
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints, webhookEvents } from '@/db/schema';
import { epochSeconds, type Clock } from '../clock';
import type { Config } from '../config';
import { createIdempotently, type IdempotentRequest } from '../kit/idempotency';
import { ApiError, resourceMissing } from '../errors';
import { newId } from '../ids';
import { endpointUrlProblem, type HostResolver } from './destinations';
import type { EventType } from './events';
import { endpointSecret } from './secrets';
import type {
  CreatedWebhookEndpoint,
  CreateEndpointInput,
  DeletedWebhookEndpoint,
  ListDeliveriesQuery,
  ListEndpointsQuery,
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
  config: Pick<Config, 'authSecret' | 'maxWebhookEndpointsPerStore'>;
  resolveHost?: HostResolver;
}

function endpointView(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    events: row.events as EventType[] | null,
    livemode: row.livemode,
    created: epochSeconds(row.createdAt),
  };
}

/** A live endpoint of this store and environment. */
function activeEndpoint(scope: Scope, id: string) {
  return and(
    eq(webhookEndpoints.id, id),
    ownedBy(webhookEndpoints, scope),
    isNull(webhookEndpoints.deletedAt),
  );
}

const CREATE_OPERATION = 'webhook_endpoint.create';

/**
 * POST /webhook_endpoints: the only answer that carries the secret. With an `Idempotency-Key` a
 * retried create (e.g. after a lost answer) replays the first endpoint and its secret, which can
 * be derived again, instead of registering a second endpoint that would get every event twice.
 */
export async function createEndpoint(
  deps: EndpointDeps,
  subject: Scope,
  input: CreateEndpointInput,
  idempotency: IdempotentRequest | undefined,
): Promise<CreatedWebhookEndpoint> {
  const problem = await endpointUrlProblem(input.url, subject.livemode, deps.resolveHost);
  if (problem) throw new ApiError('parameter_invalid', `Invalid url: ${problem}.`, { param: 'url' });
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
            events: input.events ? [...new Set(input.events)] : null,
            createdAt: now,
          })
          .returning();
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
export async function deleteEndpoint(db: Database, subject: Scope, id: string, wallNow: Date): Promise<DeletedWebhookEndpoint> {
  return db.transaction(async (tx) => {
    const [row] = await tx.update(webhookEndpoints).set({ deletedAt: wallNow }).where(activeEndpoint(subject, id)).returning({ id: webhookEndpoints.id });
    if (!row) throw resourceMissing('webhook endpoint', id);
    await tx
      .update(webhookDeliveries)
      .set({ status: 'failed', nextAttemptAt: null, lastError: 'The endpoint was deleted.', completedAt: wallNow })
      .where(and(eq(webhookDeliveries.endpointId, row.id), eq(webhookDeliveries.status, 'pending')));
    return { id: row.id, object: 'webhook_endpoint', deleted: true };
  });
}

const cursorDelivery = alias(webhookDeliveries, 'cursor_delivery');

/** GET /webhook_endpoints/{id}/deliveries: the delivery log, newest event first, each with its attempts. */
export async function listDeliveries(db: Database, subject: Scope, endpointId: string, query: ListDeliveriesQuery): Promise<WebhookDeliveryList> {
  const [endpoint] = await db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(activeEndpoint(subject, endpointId));
  if (!endpoint) throw resourceMissing('webhook endpoint', endpointId);
  const conditions = [eq(webhookDeliveries.endpointId, endpoint.id)];
  if (query.starting_after !== undefined) {
    const [cursor] = await db
      .select({ sequence: cursorDelivery.sequence })
      .from(cursorDelivery)
      .where(and(eq(cursorDelivery.id, query.starting_after), eq(cursorDelivery.endpointId, endpoint.id)));
    if (!cursor) throw resourceMissing('webhook delivery', query.starting_after, 'starting_after');
    conditions.push(sql`${webhookDeliveries.sequence} < ${cursor.sequence}`);
  }
  const rows = await db
    .select({ delivery: webhookDeliveries, eventType: webhookEvents.type })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.sequence))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const attempts =
    page.length === 0
      ? []
      : await db
          .select()
          .from(webhookDeliveryAttempts)
          .where(inArray(webhookDeliveryAttempts.deliveryId, page.map((row) => row.delivery.id)))
          .orderBy(asc(webhookDeliveryAttempts.attempt));
  return {
    object: 'list',
    data: page.map(({ delivery, eventType }): WebhookDelivery => ({
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
      attempt_log: attempts
        .filter((attempt) => attempt.deliveryId === delivery.id)
        .map((attempt) => ({
          attempt: attempt.attempt,
          attempted_at: epochSeconds(attempt.attemptedAt),
          response_status: attempt.responseStatus,
          error: attempt.error,
          duration_ms: attempt.durationMs,
        })),
    })),
    has_more: rows.length > query.limit,
    url: `/api/v1/webhook_endpoints/${endpoint.id}/deliveries`,
    livemode: subject.livemode,
  };
}
