/**
 * The dashboard's Settings page: renaming the store, audited with the person in the same
 * transaction, and the invitation link shown once to the person who made it.
 */
import type { Database } from '@/db/client';
import { recordAudit } from '../audit/service';
import { createHandoff } from '../kit/hosted-page/handoff';
import { updateStore } from '../stores/service';
import { personAuditEntry, type PersonActing } from '../users/service';

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

/**
 * A new invitation link on its way to the Settings page, shown there once. It travels in an
 * HttpOnly, SameSite=Strict cookie of a few minutes on the settings path only, never in a URL
 * (addresses end up in logs, history and Referer headers); proxy.ts takes it out of the
 * request, deletes the cookie in the same answer, and hands it to the page (a reload shows it no
 * more).
 */
export interface InvitationShown {
  storeId: string;
  email: string;
  role: string;
  url: string;
}

export const INVITATION_COOKIE = 'dashboard_invitation';
export const INVITATION_COOKIE_SECONDS = 300;
export const invitationHandoff = createHandoff<InvitationShown>('dashboard-invitation');

export function encodeInvitationCookie(invitation: InvitationShown): string {
  return Buffer.from(JSON.stringify(invitation)).toString('base64url');
}

/** The cookie's invitation; undefined for anything that is not one. */
export function decodeInvitationCookie(value: string): InvitationShown | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { storeId, email, role, url } = parsed as Record<string, unknown>;
    if (typeof storeId !== 'string' || typeof email !== 'string' || typeof role !== 'string' || typeof url !== 'string') return undefined;
    return { storeId, email, role, url };
  } catch {
    return undefined;
  }
}

/** The two Settings pages, the only paths the cookie is sent to. */
export const SETTINGS_PATHS = ['/dashboard/settings', '/dashboard/test/settings'];
