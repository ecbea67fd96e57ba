import { and, eq, isNull } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { customers } from '@/db/schema';
import { actorAudit, recordAudit, type Actor } from '../audit/service';
import { epochSeconds, type Clock } from '../clock';
import { resourceMissing } from '../errors';
import { revokeCustomerPortalSessions } from '../portal/service';
import { newId } from '../ids';
import type { Customer, CustomerList, CustomerListFilters, DeletedCustomer, ListCustomersQuery } from './schemas';
import { createdWithin, listEnvelope, listPage } from '../kit/list';
import { ownedBy, type Scope } from '../kit/scope';
import { recordEvent, type EventTimes } from '../webhooks/events';

type CustomerRow = typeof customers.$inferSelect;

export function customerView(row: CustomerRow): Customer {
  return {
    id: row.id,
    object: 'customer',
    livemode: row.livemode,
    email: row.email,
    name: row.name,
    created: epochSeconds(row.createdAt),
  };
}

/**
 * Tenant, environment and "not deleted", in the same WHERE as every lookup: a deleted
 * customer answers exactly like an unknown one.
 */
function liveCustomer(subject: Scope, id: string) {
  return and(eq(customers.id, id), ownedBy(customers, subject), isNull(customers.deletedAt));
}

/**
 * The customer of a payment: created or matched by lower-cased email within the store and
 * environment, by checkout settlement and by a subscription's first charge. Two
 * payments of one customer may settle at once: both inserts reach the partial unique index, the
 * second waits for the first to commit and then does nothing, and its select (a new statement,
 * so a new snapshot under READ COMMITTED) finds the winner's row.
 */
export async function customerFor(tx: Transaction, scope: Scope, email: string, times: EventTimes): Promise<string> {
  const lowered = email.toLowerCase();
  const [created] = await tx
    .insert(customers)
    .values({ id: newId('cus', scope.livemode), storeId: scope.storeId, livemode: scope.livemode, email: lowered, createdAt: times.now })
    .onConflictDoNothing()
    .returning();
  if (created) {
    await recordEvent(tx, { storeId: scope.storeId, livemode: scope.livemode, type: 'customer.created', object: customerView(created), ...times });
    return created.id;
  }
  const [customer] = await tx
    .select({ id: customers.id })
    .from(customers)
    .where(and(ownedBy(customers, scope), eq(customers.email, lowered), isNull(customers.deletedAt)));
  if (!customer) throw new Error('customer vanished after insert');
  return customer.id;
}

/** GET /customers/{id}. */
export async function getCustomer(db: Database, subject: Scope, id: string): Promise<Customer> {
  const [row] = await db.select().from(customers).where(liveCustomer(subject, id)).limit(1);
  if (!row) throw resourceMissing('customer', id);
  return customerView(row);
}

/**
 * DELETE /customers/{id}: a soft delete. The row stays because orders point at it; its email is
 * freed (customers_email_unique only covers rows not deleted), so a later payment with the same
 * address creates a new customer rather than reviving this one.
 */
export async function deleteCustomer(deps: { db: Database; clock: Clock; wallClock: Clock; actor: Actor }, subject: Scope, id: string): Promise<DeletedCustomer> {
  const deleted: DeletedCustomer = { id, object: 'customer', deleted: true, livemode: subject.livemode };
  await deps.db.transaction(async (tx) => {
    const times = { now: deps.clock.now(), wallNow: deps.wallClock.now() };
    const [row] = await tx.update(customers).set({ deletedAt: times.now }).where(liveCustomer(subject, id)).returning({ id: customers.id });
    if (!row) throw resourceMissing('customer', id);
    // Deleting a customer revokes their portal sessions at once, in this
    // transaction, so the delete and the revocation commit together.
    await revokeCustomerPortalSessions(tx, subject, id, times);
    await recordEvent(tx, { storeId: subject.storeId, livemode: subject.livemode, type: 'customer.deleted', object: deleted, ...times });
    await recordAudit(tx, actorAudit(subject, deps.actor, 'customer.delete', { customer: id }));
  });
  return deleted;
}

/** The customer list's filters (the page fields aside), and its rule that deleted customers are not listed. */
export function customerListConditions(filters: CustomerListFilters) {
  return {
    visible: (table: typeof customers) => isNull(table.deletedAt),
    where: [filters.email === undefined ? undefined : eq(customers.email, filters.email), ...createdWithin(customers.createdAt, filters)],
  };
}

/** GET /customers: newest first; deleted customers are left out, and are no cursor either. */
export async function listCustomers(db: Database, scope: Scope, query: ListCustomersQuery): Promise<CustomerList> {
  const { rows, hasMore } = await listPage(db, customers, { scope, page: query, kind: 'customer', ...customerListConditions(query) });
  return listEnvelope('/api/v1/customers', scope, rows.map(customerView), hasMore);
}
