/**
 * The one-time display of a new signing secret. The action that made it puts it, sealed
 * (server/dashboard/webhooks.ts), in an HttpOnly, SameSite=Strict cookie scoped to the endpoint's
 * page and living two minutes; the page opens it, and the proxy deletes it in that same answer.
 * So the secret never appears in a URL (which history, logs and Referer headers keep), nor in
 * a log, the browser never stores it in clear, and a reload shows it no more.
 */
import { cookies } from 'next/headers';
import type { NextRequest, NextResponse } from 'next/server';
import { getAppServices } from '@/server/app';
import { openSecret, sealSecret, SEALED_SECRET_SECONDS } from '@/server/dashboard/webhooks';

const SECRET_COOKIE = 'dash_webhook_secret';

/** An endpoint's page, live or test (an id of word characters only: the path goes into a header). */
const ENDPOINT_PAGE = /^\/dashboard(\/test)?\/webhooks\/we_\w+$/;

/** From an action: the secret for the endpoint page's next answer. */
export async function passSecretOnce(pagePath: string, endpointId: string, secret: string): Promise<void> {
  const { config, clock } = await getAppServices();
  (await cookies()).set(SECRET_COOKIE, sealSecret(config, endpointId, secret, clock.now()), {
    httpOnly: true,
    sameSite: 'strict',
    secure: config.publicBaseUrl.startsWith('https:'),
    path: pagePath,
    maxAge: SEALED_SECRET_SECONDS,
  });
}

/** On the endpoint's page: the secret passed to it, if any (the proxy deletes the cookie as it is read). */
export async function secretPassedOnce(endpointId: string): Promise<string | undefined> {
  const value = (await cookies()).get(SECRET_COOKIE)?.value;
  if (value === undefined) return undefined;
  const { config, clock } = await getAppServices();
  return openSecret(config, endpointId, value, clock.now());
}

/** In the proxy: an endpoint page's answer deletes the cookie its request carried. */
export function forgetPassedSecret(request: NextRequest, response: NextResponse): void {
  if (request.cookies.has(SECRET_COOKIE) && ENDPOINT_PAGE.test(request.nextUrl.pathname)) {
    // A raw header: `response.cookies` would also hand the deletion to the page, which would never see the secret.
    response.headers.append('set-cookie', `${SECRET_COOKIE}=; Path=${request.nextUrl.pathname}; Max-Age=0; HttpOnly; SameSite=Strict`);
  }
}
