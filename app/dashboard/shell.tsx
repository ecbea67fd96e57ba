import { forbidden } from 'next/navigation';
import type { ReactElement, ReactNode } from 'react';
import { can, type DashboardAction } from '@/server/users/roles';
import type { StoreMembership } from '@/server/users/service';
import { dashboardBase, INVITATIONS_PATH, requireDashboard, type DashboardAccess, type DashboardMode } from './access';
import { signOutAction, switchStoreAction } from './actions';

/** The pages of the navigation; one that needs more than `read` is linked only for roles with its right. */
const NAVIGATION: readonly { label: string; path: string; right?: DashboardAction }[] = [
  { label: 'Home', path: '' },
  { label: 'Orders', path: '/orders' },
  { label: 'Withdrawals', path: '/withdrawals' },
  { label: 'Disputes', path: '/disputes' },
  { label: 'Customers', path: '/customers' },
  { label: 'Products', path: '/products' },
  { label: 'Coupons', path: '/coupons', right: 'products' },
  { label: 'Subscriptions', path: '/subscriptions' },
  { label: 'Balance', path: '/balance', right: 'balance' },
  { label: 'Webhooks', path: '/webhooks' },
  { label: 'Events', path: '/events' },
  { label: 'API keys', path: '/api-keys' },
  { label: 'Audit log', path: '/audit' },
  { label: 'Settings', path: '/settings' },
];

/**
 * The frame of every signed-in page: store, store switcher, the test-mode switch, sign-out and
 * the navigation. `path` is the page's place below the mode's base ('' for Home).
 */
export function DashboardShell({ access, mode, path, children }: { access: DashboardAccess; mode: DashboardMode; path: string; children: ReactNode }) {
  const base = dashboardBase(mode);
  const current = access.current;
  return (
    <div className={mode === 'test' ? 'dash dash-test' : 'dash'}>
      {mode === 'test' && <p className="dash-banner">Test mode</p>}
      <header className="dash-header">
        <p className="dash-store">{current?.storeName ?? 'Dashboard'}</p>
        {access.memberships.length > 1 && (
          <form action={switchStoreAction} className="dash-switcher">
            <label htmlFor="dash-store-select">Store</label>
            <select id="dash-store-select" name="store" defaultValue={current?.storeId}>
              {access.memberships.map((membership) => (
                <option key={membership.storeId} value={membership.storeId}>
                  {membership.storeName}
                </option>
              ))}
            </select>
            <input type="hidden" name="mode" value={mode} />
            <button type="submit">Switch</button>
          </form>
        )}
        <a className="dash-mode" href={`${dashboardBase(mode === 'test' ? 'live' : 'test')}${path}`} data-on={mode === 'test'}>
          Test mode
        </a>
        <form action={signOutAction}>
          <button type="submit" className="dash-signout">
            Sign out
          </button>
        </form>
      </header>
      <nav className="dash-nav" aria-label="Dashboard">
        <ul>
          {NAVIGATION.filter((item) => item.right === undefined || (current !== undefined && can(current.role, item.right))).map((item) => (
            <li key={item.label}>
              <a href={`${base}${item.path}`} aria-current={item.path === path ? 'page' : undefined}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main className="dash-main">
        {access.invitations.length > 0 && (
          <aside className="dash-notice" aria-label="Invitations">
            You are invited to {access.invitations.map((invitation) => invitation.storeName).join(', ')}. <a href={INVITATIONS_PATH}>Accept or decline</a>
          </aside>
        )}
        {children}
      </main>
    </div>
  );
}

/** A signed-in person without a store (or without the right to this page). */
export function NoAccess({ email }: { email: string }) {
  return (
    <section className="dash-card">
      <h1>No access</h1>
      <p>{email} is not a member of a store that allows this page. Ask an owner of your store for an invitation.</p>
    </section>
  );
}

/**
 * The access of a store page at `path` (below the mode's base): the person and their current
 * store, or, for a person without a store here, the page that says so. A page that needs a right
 * beyond `read` answers a role without it 403 (Next draws its body only with client-side
 * JavaScript, which the dashboard does not run: the answer is an empty page, as its 404s are).
 */
export async function storePage(mode: DashboardMode, path: string, right: DashboardAction = 'read'): Promise<{ access: DashboardAccess; current: StoreMembership } | { denied: ReactElement }> {
  const access = await requireDashboard('read');
  if (access.current && !can(access.current.role, right)) forbidden();
  if (access.current) return { access, current: access.current };
  return {
    denied: (
      <DashboardShell access={access} mode={mode} path={path}>
        <NoAccess email={access.email} />
      </DashboardShell>
    ),
  };
}
