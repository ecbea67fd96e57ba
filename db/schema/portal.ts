import { boolean, index, integer, json, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns';
import { customers } from './customers';
import { stores } from './stores';

export type PortalScope = 'customer' | 'order' | 'subscription';

/**
 * Portal sessions. The link's token is stored only as its SHA-256 hash; the status is derived:
 * `revoked` once `revoked_at` is set, else `expired` from `expires_at` against the store clock.
 */
export const portalSessions = pgTable(
  'portal_sessions',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    livemode: boolean('livemode').notNull(),
    scope: text('scope').$type<PortalScope>().notNull(),
    /** Set for every scope: the customer whose data the portal may show (null only for a subscription/order without one). */
    customerId: text('customer_id').references(() => customers.id),
    orderId: text('order_id'),
    subscriptionId: text('subscription_id'),
    /** SHA-256 hex of the 43-character token. */
    tokenHash: text('token_hash').notNull(),
    /**
     * AES-256-GCM ciphertext of the token, kept only when the create carried an Idempotency-Key,
     * so a replay can hand back the same URL while the link is active (server/portal/token.ts);
     * cleared on revocation.
     */
    tokenCiphertext: text('token_ciphertext'),
    metadata: json('metadata').$type<Record<string, string>>().notNull(),
    accessCount: integer('access_count').notNull().default(0),
    lastAccessedAt: timestamptz('last_accessed_at'),
    revokedAt: timestamptz('revoked_at'),
    createdAt: timestamptz('created_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('portal_sessions_token_unique').on(t.tokenHash),
    index('portal_sessions_customer_idx').on(t.customerId),
    // GET /portal/sessions, newest first, unfiltered and by each selective filter.
    index('portal_sessions_list_idx').on(t.storeId, t.livemode, t.createdAt.desc(), t.id.desc()),
    index('portal_sessions_customer_list_idx').on(t.storeId, t.livemode, t.customerId, t.createdAt.desc(), t.id.desc()),
    index('portal_sessions_scope_list_idx').on(t.storeId, t.livemode, t.scope, t.createdAt.desc(), t.id.desc()),
  ],
);
