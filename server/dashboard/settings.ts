/** The dashboard's Settings page: how a new invitation reaches its person, told once to the inviter. */
import type { InvitationDelivery } from '../users/team';

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
