/**
 * A secret shown once right after the action that made it (a new API key, backup codes). The
 * action answers with a redirect, so the secret travels to the page in a cookie: never in the URL,
 * which browsers, logs and the Referer keep. The cookie is HttpOnly, SameSite=Strict, sealed to
 * the person, lives two minutes and is sent only to the one page; proxy.ts hands its value to
 * that page's rendering and deletes it in the same response, so a reload shows nothing.
 */
import { cookies, headers } from 'next/headers';
import { signingSecret } from '@/server/kit/links';
import { createHandoff } from '@/server/kit/hosted-page/handoff';
import { seal, unseal } from '@/server/kit/sealed';
import type { Services } from '@/server/context';

export const REVEAL_COOKIE = 'dash_reveal';
const REVEAL_SECONDS = 120;
const SEAL_LABEL = 'dashboard reveal';

export const revealHandoff = createHandoff<string>('dashboard-reveal');

export type RevealPurpose = 'api_key' | 'backup_codes';

/** Keeps `secret` for the next view of the page at `pagePath` by this person. */
export async function revealOnNextView(services: Pick<Services, 'config'>, pagePath: string, purpose: RevealPurpose, userId: string, secret: string): Promise<void> {
  (await cookies()).set({
    name: REVEAL_COOKIE,
    value: seal(signingSecret(services.config), SEAL_LABEL, `${userId}:${purpose}`, secret),
    path: pagePath,
    httpOnly: true,
    sameSite: 'strict',
    secure: services.config.publicBaseUrl.startsWith('https:'),
    maxAge: REVEAL_SECONDS,
  });
}

/** The secret kept for this view of the page, once; undefined when there is none for this person. */
export async function takeRevealed(services: Pick<Services, 'config'>, purpose: RevealPurpose, userId: string): Promise<string | undefined> {
  const sealed = revealHandoff.take(await headers());
  return sealed === undefined ? undefined : unseal(signingSecret(services.config), SEAL_LABEL, `${userId}:${purpose}`, sealed);
}
