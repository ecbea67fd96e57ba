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

/** Who and from where when a signed-in person acts through a dashboard form. */
export interface PersonRequest {
  email: string;
  ip: string;
  path: string;
}

/** Who acted and from where, as the audit trail records it. */
export type DashboardActor = PersonRequest;

/** The audit fields naming that person: `user:<email>` where an API call has its key's hint. */
export function byPerson(person: PersonRequest): { keyHint: string; ip: string; method: string; path: string } {
  return { keyHint: `user:${person.email}`, ip: person.ip, method: 'POST', path: person.path };
}
