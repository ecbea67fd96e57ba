/**
 * The dashboard's Settings page: renaming the store, audited with the person in the same
 * transaction, and how a new invitation reaches its person, told once to the inviter.
 */
import type { Database } from '@/db/client';
import { recordAudit } from '../audit/service';
import { updateStore } from '../stores/service';
import { personAuditEntry, type PersonActing } from '../users/service';
import type { InvitationDelivery } from '../users/team';

export const MAX_STORE_NAME_LENGTH = 255;

/** Renames the actor's store; false when the name is empty or too long once trimmed (nothing changed). */
export async function renameStoreAs(db: Database, actor: PersonActing, rawName: string): Promise<boolean> {
  const name = rawName.trim();
  if (name === '' || name.length > MAX_STORE_NAME_LENGTH) return false;
  await db.transaction(async (tx) => {
    await updateStore(tx, actor.storeId, { name });
    await recordAudit(tx, personAuditEntry(actor, 'store.rename', { name }));
  });
  return true;
}

/** How a new invitation went, as the Settings page tells the inviter once (app/dashboard/reveal.ts carries it there). */
export interface InvitationShown {
  storeId: string;
  email: string;
  role: string;
  delivery: InvitationDelivery;
}

const DELIVERIES: readonly InvitationDelivery[] = ['link_mailed', 'link_not_sent', 'notice_mailed', 'awaiting_sign_in'];

/** The revealed text's invitation; undefined for anything that is not one. */
export function parseInvitationShown(text: string): InvitationShown | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { storeId, email, role, delivery } = parsed as Record<string, unknown>;
    if (typeof storeId !== 'string' || typeof email !== 'string' || typeof role !== 'string') return undefined;
    const known = DELIVERIES.find((value) => value === delivery);
    return known === undefined ? undefined : { storeId, email, role, delivery: known };
  } catch {
    return undefined;
  }
}
