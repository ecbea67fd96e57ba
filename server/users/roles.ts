/** What each dashboard role may do; every page and action asks `can` on the server. */
import type { MemberRole } from '@/db/schema';

export const DASHBOARD_ACTIONS = ['read', 'refund', 'products', 'developer', 'liveSecretKeys', 'export', 'settings', 'bankAccount', 'balance', 'disputes'] as const;
export type DashboardAction = (typeof DASHBOARD_ACTIONS)[number];

/**
 * read: every page (secrets never shown again); refund: refunds, subscription cancels, portal
 * links, customer deletes; products: create, edit, delete; developer: webhooks, event resends,
 * API keys, the test clock; liveSecretKeys: create, roll and revoke live secret keys (a live
 * secret key can do everything the API can, refunds included); export: CSV; settings: store
 * settings, the payout schedule, the language and the team (admins may not touch owners, checked
 * where the team is changed); bankAccount: where payouts go, the owners' alone; balance: the
 * store's money (the Balance and payout pages, their CSV and statements, paying out); disputes:
 * answering a dispute (its evidence and the evidence pack).
 */
const ALLOWED: Record<MemberRole, ReadonlySet<DashboardAction>> = {
  owner: new Set(['read', 'refund', 'products', 'developer', 'liveSecretKeys', 'export', 'settings', 'bankAccount', 'balance', 'disputes']),
  admin: new Set(['read', 'refund', 'products', 'developer', 'liveSecretKeys', 'export', 'settings', 'balance', 'disputes']),
  developer: new Set(['read', 'products', 'developer', 'export']),
  support: new Set(['read', 'refund', 'export', 'disputes']),
  viewer: new Set(['read']),
};

export function can(role: MemberRole, action: DashboardAction): boolean {
  return ALLOWED[role].has(action);
}
