/** The audit trail's fields for a change made by a signed-in person through a dashboard form. */
import { byPerson, type AuditEntry } from '../audit/service';
import type { Scope } from '../kit/scope';
import type { DashboardActor } from '../audit/service';

export function personAudit(scope: Scope, actor: DashboardActor, action: string, details: Record<string, unknown>): AuditEntry {
  return { action, storeId: scope.storeId, livemode: scope.livemode, ...byPerson(actor), details };
}
