import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { licenseKeys, licenseValidations } from '@/db/schema';
import { epochSeconds, type Clock } from '../clock';
import { newId } from '../ids';
import { insertSelected } from '../kit/idempotency';
import type { LicenseValidation } from './schemas';
import { ownedBy, type Scope } from '../kit/scope';

/** Keys are issued upper-case; customers paste them with stray spaces or in lower case. */
export function normalizeLicenseKey(key: string): string {
  return key.trim().toUpperCase();
}

export interface ValidateLicenseDeps {
  db: Database;
  /** The store's clock: each validation is recorded at its time. */
  clock: Clock;
}

/**
 * POST /licenses/validate. The lookup is scoped like every other, so another store's or
 * the other environment's key reads as not found: the answer never reveals that a key exists
 * elsewhere. A revoked key (its order refunded in full, its product force-deleted, or a dispute of
 * its order lost) is refused from the commit of the revocation on, since nothing is cached. Each
 * validation of a key found is recorded with its result (the customer's use of what they bought,
 * which a dispute's evidence shows), by the statement that reads the key.
 */
export async function validateLicenseKey(deps: ValidateLicenseDeps, subject: Scope, rawKey: string): Promise<LicenseValidation> {
  const key = normalizeLicenseKey(rawKey);
  const { db } = deps;
  const found = db.$with('found').as(
    db
      .select()
      .from(licenseKeys)
      .where(and(eq(licenseKeys.key, key), ownedBy(licenseKeys, subject)))
      .limit(1),
  );
  const recorded = insertSelected(
    db,
    'recorded',
    licenseValidations,
    {
      id: newId('lv', subject.livemode),
      storeId: sql`${found.storeId}`,
      livemode: sql`${found.livemode}`,
      licenseKeyId: sql`${found.id}`,
      orderId: sql`${found.orderId}`,
      result: sql`case when ${found.revokedAt} is null then 'active' else 'revoked' end`,
      createdAt: deps.clock.now(),
    },
    sql`from ${found}`,
  );
  const [row] = await db.with(found, recorded).select().from(found);
  const base = { object: 'license_key_validation' as const, livemode: subject.livemode, key };
  if (!row) return { ...base, valid: false, status: 'not_found', reason: 'not_found', product_id: null, order_id: null, created: null, revoked_at: null };
  const revoked = row.revokedAt !== null;
  return {
    ...base,
    valid: !revoked,
    status: revoked ? 'revoked' : 'active',
    reason: revoked ? 'revoked' : null,
    product_id: row.productId,
    order_id: row.orderId,
    created: epochSeconds(row.createdAt),
    revoked_at: row.revokedAt === null ? null : epochSeconds(row.revokedAt),
  };
}

/**
 * Takes back the license keys of an order whose purchase was reversed (refunded in full; a lost
 * dispute will call it too), inside the transaction that records the reversal, so a key stops
 * validating from that commit on. Keys already revoked keep their first `revoked_at`.
 *
 * Refunds name an order, never a line, so no refund short of the whole order is attributed to a
 * line: a line's keys are revoked when the order is refunded in full, never by a partial refund.
 */
export async function revokeOrderLicenseKeys(tx: Transaction, scope: Scope, orderId: string, now: Date): Promise<void> {
  await tx
    .update(licenseKeys)
    .set({ revokedAt: now })
    .where(and(eq(licenseKeys.orderId, orderId), ownedBy(licenseKeys, scope), isNull(licenseKeys.revokedAt)));
}
