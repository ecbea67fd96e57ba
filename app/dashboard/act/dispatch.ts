/**
 * Every dashboard form that changes something posts to `/dashboard/act/<name>`, answered here and
 * nowhere else: the Origin check, the session, the person's membership and role are checked on
 * the server for each post, whatever the page showed. A refusal is a 403 that changes nothing; a
 * done action (or a refusal by the service, as a code in the query) answers 303 to a page, so the
 * forms work without JavaScript and a reload never posts again.
 */
import { headers } from 'next/headers';
import { getAppServices } from '@/server/app';
import { clientIp, type Services } from '@/server/context';
import type { PersonActor } from '@/server/audit/service';
import { actingContext, type ActingContext } from '@/server/dashboard/service';
import type { IdempotentRequest } from '@/server/kit/idempotency';
import { isServiceOrigin } from '@/server/kit/origin';
import { isSafeText } from '@/server/kit/text-input';
import type { Scope } from '@/server/kit/scope';
import { can, type DashboardAction } from '@/server/users/roles';
import type { StoreMembership } from '@/server/users/service';
import { twoFactorEnabled } from '@/server/users/two-factor';
import { dashboardAccess, dashboardBase, SIGN_IN_PATH, type DashboardMode } from '../access';

export interface ActionInput {
  form: FormFields;
  services: Services;
  mode: DashboardMode;
  /** The current store in the form's mode: the only data an action may touch. */
  scope: Scope;
  membership: StoreMembership;
  /** The signed-in person: the request's one actor, which the services audit their changes with. */
  actor: PersonActor;
  userId: string;
  /** The services' context for this person, the audit trail naming `page` as where they acted. */
  acting(page: string): Promise<ActingContext>;
}

export interface DashboardActionDefinition {
  /** The role's right the action needs. */
  right: DashboardAction;
  /**
   * What the action changes when it is not the data of the form's mode: the person's own account
   * (password, sessions, two-factor) or the store as a whole (its name, its team). Only changes to
   * live data need owners and admins to have turned two-factor on.
   */
  changes?: 'person' | 'store';
  /** A further right what the form targets needs (a live secret key's), checked like `right`. */
  targetRight?(input: ActionInput): Promise<DashboardAction | undefined>;
  /** Acts and returns the path to answer with (303). */
  run(input: ActionInput): Promise<string>;
}

/**
 * A form's text fields; a missing or file field reads as '', and so does one that is not safe
 * text (server/kit/text-input.ts), which the action's own check then refuses.
 */
export class FormFields {
  constructor(private readonly data: FormData) {}

  text(name: string): string {
    const value = this.data.get(name);
    return typeof value === 'string' && isSafeText(value) ? value : '';
  }

  all(name: string): string[] {
    return this.data.getAll(name).filter((value): value is string => typeof value === 'string' && isSafeText(value));
  }
}

/** The idempotency key of a form (`ActionForm` with `idempotent`). */
export const FORM_KEY = /^[0-9a-f]{32}$/;

/** A create under its form's key, as an `Idempotency-Key` header is to the API: a double submit acts once. */
export const formRequest = (key: string, body: unknown): IdempotentRequest => ({ key, body, replayed: false });

/** A path with a refusal code in its query (`?error=` or `&error=`). */
export function withError(path: string, code: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}error=${encodeURIComponent(code)}`;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The refusal a browser shows: a plain page saying why, with the way back. */
function refusal(message: string, back: string): Response {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Not allowed</title></head><body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem"><h1>Not allowed</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(back)}">Back to the dashboard</a></p></body></html>`;
  return new Response(page, { status: 403, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
}

const seeOther = (location: string) => new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });

export async function dispatchDashboardAction(request: Request, definition: DashboardActionDefinition | undefined): Promise<Response> {
  const services = await getAppServices();
  if (!isServiceOrigin(request.headers.get('origin'), services.config.publicBaseUrl)) return refusal('Cross-site request refused: post this form from the dashboard itself.', '/dashboard');
  if (!definition) return new Response('No such dashboard action.\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const form = new FormFields(await request.formData().catch(() => new FormData()));
  const mode: DashboardMode = form.text('mode') === 'live' ? 'live' : 'test';
  const access = await dashboardAccess(definition.right);
  if (!access) return seeOther(SIGN_IN_PATH);
  const membership = access.current;
  if (!membership) return refusal(`Your role may not do this in this store (${access.email}).`, dashboardBase(mode));
  // Live changes by those who can change everything need a second factor behind the password.
  if (mode === 'live' && definition.changes === undefined && (membership.role === 'owner' || membership.role === 'admin') && !(await twoFactorEnabled(services.db, access.userId))) {
    return refusal('Owners and admins must turn on two-factor authentication before changing anything in live mode: turn it on in Settings.', `${dashboardBase(mode)}/settings`);
  }
  const path = new URL(request.url).pathname;
  const scope = { storeId: membership.storeId, livemode: mode === 'live' };
  const actor: PersonActor = { kind: 'person', userId: access.userId, email: access.email, role: membership.role, ip: clientIp(await headers()), path };
  const input: ActionInput = {
    form,
    services,
    mode,
    scope,
    membership,
    actor,
    userId: access.userId,
    acting: (page) => actingContext(services, scope, { ...actor, path: page }),
  };
  const targetRight = await definition.targetRight?.(input);
  if (targetRight && !can(membership.role, targetRight)) return refusal(`Your role may not do this in this store (${access.email}).`, dashboardBase(mode));
  return seeOther(await definition.run(input));
}
