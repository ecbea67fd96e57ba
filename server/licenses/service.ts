import { and, eq, isNull } from 'drizzle-orm';
import type { Database, Transaction } from '@/db/client';
import { licenseKeys } from '@/db/schema';
import { epochSeconds } from '../clock';
import type { LicenseValidation } from './schemas';
import { ownedBy, type Scope } from '../kit/scope';

/** Keys are issued upper-case; customers paste them with stray spaces or in lower case. */
export function normalizeLicenseKey(key: string): string {
  return key.trim().toUpperCase();
}

/**
 * POST /licenses/validate. The lookup is scoped like every other, so another store's or
 * the other environment's key reads as not found: the answer never reveals that a key exists
 * elsewhere. A revoked key (its order refunded in full, or its product force-deleted) is refused
 * from the commit of the revocation on, since nothing is cached.
 */
export async function validateLicenseKey(db: Database, subject: Scope, rawKey: string): Promise<LicenseValidation> {
  const key = normalizeLicenseKey(rawKey);
  const [row] = await db
    .select()
    .from(licenseKeys)
    .where(and(eq(licenseKeys.key, key), ownedBy(licenseKeys, subject)))
    .limit(1);
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
