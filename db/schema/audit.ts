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
  (t) => [index('audit_events_store_idx').on(t.storeId, t.createdAt)],
);
