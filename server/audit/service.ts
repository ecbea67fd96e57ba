import { type SQL, sql } from 'drizzle-orm';
import { auditEvents, type MemberRole } from '@/db/schema';
import type { Executor } from '@/db/client';
import { insertSelected } from '../kit/idempotency';
import type { Scope } from '../kit/scope';

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
  /** The dashboard page the form was on. */
  path: string;
}

/** An API key acting through /api/v1 or /api/trpc. */
export interface KeyActor {
  kind: 'key';
  keyId: string;
  /** The key's public hint, `sk_test_…abcd`: how the audit trail names it. */
  hint: string;
  livemode: boolean;
  ip: string;
  method: string;
  path: string;
}

/** A signed-in person acting through a dashboard form. */
export interface PersonActor extends PersonRequest {
  kind: 'person';
  userId: string;
  role: MemberRole;
}

/** The operator's own tools: entries naming neither a key nor a person. */
export interface OperatorActor {
  kind: 'operator';
  /** Where an admin API request came from, recorded as for the operator's other changes; none for the demo store's seed. */
  request?: { ip: string; method: string; path: string };
}

/** A customer acting on a signed, single-purpose page (a new card, a cancellation), named `customer` in the trail. */
export interface CustomerActor {
  kind: 'customer';
  request: { ip: string; method: string; path: string };
}

/** The one actor of a request: whichever way a change came in, its service audits it with this. */
export type Actor = KeyActor | PersonActor | OperatorActor | CustomerActor;

export const OPERATOR: OperatorActor = { kind: 'operator' };

type ActorFields = Pick<AuditEntry, 'keyHint' | 'ip' | 'method' | 'path'>;

/** The audit fields naming that person: `user:<email>` where an API call has its key's hint. */
export function byPerson(person: PersonRequest): Required<ActorFields> {
  return { keyHint: `user:${person.email}`, ip: person.ip, method: 'POST', path: person.path };
}

/** The audit fields naming the actor and where the request came from. */
export function byActor(actor: Actor): ActorFields {
  if (actor.kind === 'key') return { keyHint: actor.hint, ip: actor.ip, method: actor.method, path: actor.path };
  if (actor.kind === 'person') return byPerson(actor);
  if (actor.kind === 'customer') return { keyHint: 'customer', ...actor.request };
  return { ...actor.request };
}

/** An entry of a change to the scope's data, by the actor. */
export function actorAudit(scope: Scope, actor: Actor, action: string, details: Record<string, unknown>): AuditEntry {
  return { action, storeId: scope.storeId, livemode: scope.livemode, ...byActor(actor), details };
}

/**
 * The audit entry of a hot create as a CTE of its one statement (written when `from` selects a
 * row, e.g. only when the idempotency key was claimed); its values are `auditParams`.
 */
export function auditInsertCte(executor: Executor, action: string, from: SQL) {
  const placeholder = sql.placeholder;
  const entry = {
    action,
    storeId: placeholder('storeId'),
    livemode: placeholder('livemode'),
    keyHint: placeholder('auditKeyHint'),
    ip: placeholder('auditIp'),
    method: placeholder('auditMethod'),
    path: placeholder('auditPath'),
    details: placeholder('auditDetails'),
  };
  return insertSelected(executor, 'new_audit', auditEvents, entry, from);
}

/** The parameters of `auditInsertCte` for the actor and the entry's details. */
export function auditParams(actor: Actor, details: Record<string, unknown>) {
  const by = byActor(actor);
  return { auditKeyHint: by.keyHint ?? null, auditIp: by.ip ?? null, auditMethod: by.method ?? null, auditPath: by.path ?? null, auditDetails: details };
}
