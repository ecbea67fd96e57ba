/** The audit trail's fields for a change made by a signed-in person through a dashboard form. */
import type { AuditEntry } from '../audit/service';
import type { Scope } from '../kit/scope';
import type { DashboardActor } from './orders';

/** Who and from where; `user:<email>` names the person where an API call has its key's hint. */
export function personRequest(actor: DashboardActor) {
  return { keyHint: `user:${actor.email}`, ip: actor.ip, method: 'POST', path: actor.path };
}

export function personAudit(scope: Scope, actor: DashboardActor, action: string, details: Record<string, unknown>): AuditEntry {
  return { action, storeId: scope.storeId, livemode: scope.livemode, ...personRequest(actor), details };
}
