/**
 * The event log: every event a store recorded, in the order recorded, read by the API and
 * followed by `npm run listen`. The rows are the webhook outbox (server/webhooks/events.ts).
 */
import { and, asc, desc, eq, gt, gte, like, lt, type SQL } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { webhookEvents } from '@/db/schema';
import { ApiError, resourceMissing } from '../errors';
import { ownedBy, type Scope } from '../kit/scope';
import type { Event, EventList, ListEventsQuery } from './schemas';

type EventRow = typeof webhookEvents.$inferSelect;

/** The envelope as delivered; events recorded before objects were counted get their count here. */
function eventView(row: EventRow): Event {
  return { ...row.payload, sequence: row.objectSequence } as unknown as Event;
}

export async function getEvent(db: Database, scope: Scope, id: string): Promise<Event> {
  const [row] = await db
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.id, id), ownedBy(webhookEvents, scope)))
    .limit(1);
  if (!row) throw resourceMissing('event', id);
  return eventView(row);
}

/** Where a cursor event sits in the recorded order. */
async function cursorSequence(db: Database, scope: Scope, id: string, param: 'starting_after' | 'ending_before'): Promise<number> {
  const [cursor] = await db
    .select({ sequence: webhookEvents.sequence })
    .from(webhookEvents)
    .where(and(eq(webhookEvents.id, id), ownedBy(webhookEvents, scope)));
  if (!cursor) throw resourceMissing('event', id, param);
  return cursor.sequence;
}

/**
 * GET /events: newest recorded first. `starting_after` pages back in time; `ending_before`
 * gives the events recorded right after its event (read oldest first, answered newest first).
 */
export async function listEvents(db: Database, scope: Scope, query: ListEventsQuery): Promise<EventList> {
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw new ApiError('parameter_invalid', 'Send `starting_after` or `ending_before`, not both.', { param: 'ending_before' });
  }
  const conditions: SQL[] = [ownedBy(webhookEvents, scope)];
  if (query.type !== undefined) {
    conditions.push(query.type.endsWith('.*') ? like(webhookEvents.type, `${query.type.slice(0, -1)}%`) : eq(webhookEvents.type, query.type));
  }
  if (query.object_id !== undefined) conditions.push(eq(webhookEvents.objectId, query.object_id));
  if (query.created_gte !== undefined) conditions.push(gte(webhookEvents.createdAt, new Date(query.created_gte * 1000)));
  if (query.created_lte !== undefined) conditions.push(lt(webhookEvents.createdAt, new Date((query.created_lte + 1) * 1000)));
  const forward = query.ending_before !== undefined;
  if (query.starting_after !== undefined) conditions.push(lt(webhookEvents.sequence, await cursorSequence(db, scope, query.starting_after, 'starting_after')));
  if (query.ending_before !== undefined) conditions.push(gt(webhookEvents.sequence, await cursorSequence(db, scope, query.ending_before, 'ending_before')));
  const rows = await db
    .select()
    .from(webhookEvents)
    .where(and(...conditions))
    .orderBy(forward ? asc(webhookEvents.sequence) : desc(webhookEvents.sequence))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  if (forward) page.reverse();
  return { object: 'list', data: page.map(eventView), has_more: rows.length > query.limit, url: '/api/v1/events', livemode: scope.livemode };
}
