/**
 * A dashboard change and its audit entry in one transaction: the entry names the person
 * (`user:<email>`, where an API call has its key's hint), and a change that rolls back leaves none.
 */
import type { Database } from '@/db/client';
import { byPerson, recordAudit } from '../audit/service';
import type { Services } from '../context';
import type { IdempotentRequest } from '../kit/idempotency';
import type { Scope } from '../kit/scope';
import type { DashboardActor } from '../audit/service';

export interface AuditedChange<T> {
  /** The audit action, e.g. `product.create`. */
  action: string;
  /** The change, on the transaction's executor (a service's own transaction becomes a savepoint). */
  change(db: Database): Promise<T>;
  details(result: T): Record<string, unknown>;
  /** A create under a form's key: a replay changed nothing, so it is not audited again. */
  idempotency?: IdempotentRequest;
}

export async function auditedChange<T>(services: Pick<Services, 'db'>, scope: Scope, actor: DashboardActor, work: AuditedChange<T>): Promise<T> {
  return services.db.transaction(async (tx) => {
    const result = await work.change(tx);
    if (!work.idempotency?.replayed) {
      await recordAudit(tx, {
        action: work.action,
        storeId: scope.storeId,
        livemode: scope.livemode,
        ...byPerson(actor),
        details: work.details(result),
      });
    }
    return result;
  });
}
