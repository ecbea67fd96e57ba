/**
 * The portal link a person just made is shown once, on the customer page the create answers with.
 * The 303 cannot carry the link in its query (addresses end up in logs and browser history), so
 * the action sets a cookie holding only the new link's id — HttpOnly, SameSite=Strict, limited to
 * that customer page's path, two minutes — while the link's token stays sealed in the database
 * until the page takes it (takeNewPortalUrl clears it as it reads it). A reload, another tab or a
 * copied cookie then finds nothing; a page cannot delete a cookie, so this one simply expires.
 */
import { cookies } from 'next/headers';
import { dashboardBase, type DashboardMode } from '../access';

const COOKIE = 'dash_new_portal_link';

export const customerPath = (mode: DashboardMode, id: string) => `${dashboardBase(mode)}/customers/${encodeURIComponent(id)}`;

export async function rememberNewPortalLink(mode: DashboardMode, customerId: string, portalSessionId: string, publicBaseUrl: string): Promise<void> {
  (await cookies()).set(COOKIE, portalSessionId, {
    path: customerPath(mode, customerId),
    httpOnly: true,
    sameSite: 'strict',
    secure: publicBaseUrl.startsWith('https:'),
    maxAge: 120,
  });
}

/** The id the cookie names, if any; the page then takes the URL once. */
export async function newPortalLinkId(): Promise<string | undefined> {
  return (await cookies()).get(COOKIE)?.value;
}
