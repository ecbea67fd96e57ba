import { auditEvents } from '@/db/schema';
import type { Executor } from '@/db/client';

export interface AuditEntry {
  action: string;
  code?: string;
  storeId?: string;
  livemode?: boolean;
  /** Who acted: an API key's hint (`sk_test_…abcd`) or a dashboard person (`user:<email>`). */
  keyHint?: string;
  ip?: string;
  method?: string;
  path?: string;
  details?: Record<string, unknown>;
}

/** Appends to the audit trail. Runs inside the caller's transaction when given one. */
export async function recordAudit(db: Executor, entry: AuditEntry): Promise<void> {
  await db.insert(auditEvents).values(entry);
}
