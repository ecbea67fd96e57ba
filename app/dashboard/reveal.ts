/**
 * A secret shown once right after the action that made it (a new API key, backup codes, a portal
 * link, a webhook signing secret), or how a new invitation was sent (which names the invited
 * person). The action answers with a redirect, so the secret travels to the page in a cookie: never in the URL, which browsers, logs and the Referer keep. The cookie is
 * HttpOnly, SameSite=Strict, sealed to the purpose and the page with the person and its expiry
 * inside, lives two minutes and is sent only to the one page; proxy.ts opens it, hands the secret
 * to that page's rendering and deletes the cookie in the same response, so a reload shows nothing.
 */
import { cookies, headers } from 'next/headers';
import type { Services } from '@/server/context';
import { createHandoff } from '@/server/kit/hosted-page/handoff';
import { signingSecret } from '@/server/kit/links';
import { seal, unseal } from '@/server/kit/sealed';

export const REVEAL_COOKIE = 'dash_reveal';
const REVEAL_SECONDS = 120;
const SEAL_LABEL = 'dashboard reveal';

const REVEAL_PURPOSES = ['api_key', 'backup_codes', 'invitation', 'portal_link', 'webhook_secret'] as const;
export type RevealPurpose = (typeof REVEAL_PURPOSES)[number];

/** What a verified cookie hands to its page: the secret and whom it is for. */
interface Revealed {
  userId: string;
  secret: string;
}

/** One hand-off per purpose: a page taking one purpose leaves another's for the part of the page that shows it. */
const handoffs = Object.fromEntries(REVEAL_PURPOSES.map((purpose) => [purpose, createHandoff<Revealed>(`dashboard-reveal:${purpose}`)])) as Record<
  RevealPurpose,
  ReturnType<typeof createHandoff<Revealed>>
>;

const isPurpose = (text: string): text is RevealPurpose => (REVEAL_PURPOSES as readonly string[]).includes(text);

/** Keeps `secret` for the next view of the page at `pagePath` by this person. */
export async function revealOnNextView(services: Pick<Services, 'config'>, pagePath: string, purpose: RevealPurpose, userId: string, secret: string): Promise<void> {
  const sealed = JSON.stringify({ uid: userId, exp: Math.floor(Date.now() / 1000) + REVEAL_SECONDS, secret });
  (await cookies()).set({
    name: REVEAL_COOKIE,
    value: `${purpose}:${seal(signingSecret(services.config), SEAL_LABEL, `${purpose}:${pagePath}`, sealed)}`,
    path: pagePath,
    httpOnly: true,
    sameSite: 'strict',
    secure: services.config.publicBaseUrl.startsWith('https:'),
    maxAge: REVEAL_SECONDS,
  });
}

/**
 * For proxy.ts: the request headers that hand the cookie's secret to this rendering of the page
 * at `pagePath`; undefined for a cookie that does not open there (forged, another page's,
 * expired), which is dropped before anything is kept for the page.
 */
export function handRevealedToPage(services: Pick<Services, 'config'>, cookieValue: string, pagePath: string, requestHeaders: Headers): Headers | undefined {
  const separator = cookieValue.indexOf(':');
  const purpose = cookieValue.slice(0, separator);
  if (separator <= 0 || !isPurpose(purpose)) return undefined;
  const opened = unseal(signingSecret(services.config), SEAL_LABEL, `${purpose}:${pagePath}`, cookieValue.slice(separator + 1));
  if (opened === undefined) return undefined;
  const claims = JSON.parse(opened) as { uid: string; exp: number; secret: string };
  if (claims.exp <= Math.floor(Date.now() / 1000)) return undefined;
  return handoffs[purpose].give({ userId: claims.uid, secret: claims.secret }, requestHeaders);
}

/** The secret kept for this view of the page, once; undefined when there is none for this person and purpose. */
export async function takeRevealed(purpose: RevealPurpose, userId: string): Promise<string | undefined> {
  const revealed = handoffs[purpose].take(await headers());
  return revealed?.userId === userId ? revealed.secret : undefined;
}
