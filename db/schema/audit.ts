import { bigint, boolean, index, json, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns';

/**
 * Audit trail: every authentication failure, and later every subscription create,
 * update and cancel. Never holds a key, only its hint.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    action: text('action').notNull(),
    code: text('code'),
    storeId: text('store_id'),
    livemode: boolean('livemode'),
    keyHint: text('key_hint'),
    ip: text('ip'),
    method: text('method'),
    path: text('path'),
    details: json('details').$type<Record<string, unknown>>(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('audit_events_store_idx').on(t.storeId, t.createdAt),
    // The dashboard's audit log filtered by action (exact, or a prefix by LIKE, which a btree
    // index serves only under text_pattern_ops) or by who acted, newest first.
    index('audit_events_store_action_idx').on(t.storeId, t.action.op('text_pattern_ops'), t.createdAt, t.id),
    index('audit_events_store_actor_idx').on(t.storeId, t.keyHint, t.createdAt, t.id),
  ],
);
