/** A dashboard action's view of the services: the signed-in person as the actor, in one scope. */
import type { MemberRole } from '@/db/schema';
import type { PersonActor } from '@/server/audit/service';
import type { Services } from '@/server/context';
import { actingContext, type ActingContext } from '@/server/dashboard/service';
import type { IdempotentRequest } from '@/server/kit/idempotency';
import type { Scope } from '@/server/kit/scope';

/** A signed-in person as the dashboard's dispatch builds them. */
export function person(fields: { email: string; ip: string; path: string }, role: MemberRole = 'owner'): PersonActor {
  return { kind: 'person', userId: 'usr_dashboard_test', role, ...fields };
}

/** The services' context of that person's action in the scope. */
export function actingAs(services: Services, scope: Scope, actor: PersonActor): Promise<ActingContext> {
  return actingContext(services, scope, actor);
}

/** A create under a form's idempotency key. */
export const formKey = (key: string, body: unknown): IdempotentRequest => ({ key, body, replayed: false });
