/**
 * A secret shown once right after the action that made it (a new API key, backup codes, an
 * invitation link, a portal link, a webhook signing secret). The action answers with a redirect, so the secret travels to the
 * page in a cookie: never in the URL, which browsers, logs and the Referer keep. The cookie is
 * HttpOnly, SameSite=Strict, sealed to the person and the purpose, lives two minutes and is sent
 * only to the one page; proxy.ts hands its value to that page's rendering and deletes it in the
 * same response, so a reload shows nothing.
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

/** One hand-off per purpose: a page taking one purpose leaves another's for the part of the page that shows it. */
const handoffs = Object.fromEntries(REVEAL_PURPOSES.map((purpose) => [purpose, createHandoff<string>(`dashboard-reveal:${purpose}`)])) as Record<RevealPurpose, ReturnType<typeof createHandoff<string>>>;

const isPurpose = (text: string): text is RevealPurpose => (REVEAL_PURPOSES as readonly string[]).includes(text);

/** Keeps `secret` for the next view of the page at `pagePath` by this person. */
export async function revealOnNextView(services: Pick<Services, 'config'>, pagePath: string, purpose: RevealPurpose, userId: string, secret: string): Promise<void> {
  (await cookies()).set({
    name: REVEAL_COOKIE,
    value: `${purpose}:${seal(signingSecret(services.config), SEAL_LABEL, `${userId}:${purpose}`, secret)}`,
    path: pagePath,
    httpOnly: true,
    sameSite: 'strict',
    secure: services.config.publicBaseUrl.startsWith('https:'),
    maxAge: REVEAL_SECONDS,
  });
}

/** For proxy.ts: the request headers that hand the cookie's secret to this rendering; undefined for a cookie that is not one. */
export function handRevealedToPage(cookieValue: string, requestHeaders: Headers): Headers | undefined {
  const separator = cookieValue.indexOf(':');
  const purpose = cookieValue.slice(0, separator);
  return separator > 0 && isPurpose(purpose) ? handoffs[purpose].give(cookieValue.slice(separator + 1), requestHeaders) : undefined;
}

/** The secret kept for this view of the page, once; undefined when there is none for this person and purpose. */
export async function takeRevealed(services: Pick<Services, 'config'>, purpose: RevealPurpose, userId: string): Promise<string | undefined> {
  const sealed = handoffs[purpose].take(await headers());
  return sealed === undefined ? undefined : unseal(signingSecret(services.config), SEAL_LABEL, `${userId}:${purpose}`, sealed);
}
