import { ApiError } from '@/server/errors';
import { createEndpointInput, rollSecretInput, updateEndpointInput } from '@/server/webhooks/schemas';
import { createEndpoint, eventReceived, resendEvent, rollEndpointSecret, updateEndpoint } from '@/server/webhooks/service';
import { dashboardBase, type DashboardMode } from '../access';
import { FORM_KEY, formRequest, withError, type DashboardActionDefinition, type FormFields } from '../act/dispatch';
import { revealOnNextView } from '../reveal';

const endpointPage = (mode: DashboardMode, id: string) => `${dashboardBase(mode)}/webhooks/${encodeURIComponent(id)}`;

/** The endpoint form's event types: null (every type) when "All event types" is ticked. */
const chosenEvents = (form: FormFields) => (form.text('all_events') === 'yes' ? null : form.all('events'));

/** The page's code for a refusal of the webhook services; undefined for anything else. */
function webhookErrorCode(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'parameter_invalid' && error.param === 'url') return 'invalid_url';
  if (['webhook_endpoint_limit_reached', 'webhook_endpoint_disabled', 'idempotency_key_reused', 'resource_missing'].includes(error.code)) return error.code;
  return undefined;
}

/** Runs a service call; a refusal it knows becomes `?error=<code>` on `failurePath`. */
async function orRefusal(work: Promise<string>, failurePath: string): Promise<string> {
  return work.catch((error: unknown) => {
    const code = webhookErrorCode(error);
    if (code === undefined) throw error;
    return withError(failurePath, code);
  });
}

/** Registers an endpoint once per rendering of the form; its page then shows the secret, once. */
export const webhookCreate: DashboardActionDefinition = {
  right: 'developer',
  async run({ form, services, mode, scope, acting, userId }) {
    const list = `${dashboardBase(mode)}/webhooks`;
    const key = form.text('idempotency_key');
    if (!FORM_KEY.test(key)) return withError(list, 'form_expired');
    const events = chosenEvents(form);
    if (events?.length === 0) return withError(list, 'no_events');
    const parsed = createEndpointInput.safeParse({ url: form.text('url').trim(), events: events ?? undefined });
    if (!parsed.success) return withError(list, parsed.error.issues[0]?.path[0] === 'events' ? 'invalid_events' : 'invalid_url');
    return orRefusal(
      createEndpoint(await acting(list), scope, parsed.data, formRequest(key, parsed.data)).then(async (endpoint) => {
        const page = endpointPage(mode, endpoint.id);
        await revealOnNextView(services, page, 'webhook_secret', userId, endpoint.secret);
        return page;
      }),
      list,
    );
  },
};

/** Saves the endpoint's URL and event types. */
export const webhookUpdate: DashboardActionDefinition = {
  right: 'developer',
  async run({ form, mode, scope, acting }) {
    const id = form.text('endpoint_id');
    const page = endpointPage(mode, id);
    const events = chosenEvents(form);
    if (events?.length === 0) return withError(page, 'no_events');
    const parsed = updateEndpointInput.safeParse({ id, url: form.text('url').trim(), events });
    if (!parsed.success) return withError(page, parsed.error.issues[0]?.path[0] === 'events' ? 'invalid_events' : 'invalid_url');
    const { id: _id, ...changes } = parsed.data;
    return orRefusal(
      updateEndpoint(await acting(page), scope, id, changes).then(() => `${page}?saved=updated`),
      page,
    );
  },
};

/** Disables an endpoint (what falls due waits, pending) or enables it again. */
export const webhookDisable: DashboardActionDefinition = {
  right: 'developer',
  async run({ form, mode, scope, acting }) {
    const id = form.text('endpoint_id');
    const page = endpointPage(mode, id);
    const disabled = form.text('disabled') === 'true';
    return orRefusal(
      updateEndpoint(await acting(page), scope, id, { disabled }).then(() => `${page}?saved=${disabled ? 'disabled' : 'enabled'}`),
      page,
    );
  },
};

/** A new signing secret, shown once on the page; the old one keeps signing for the chosen time. */
export const webhookRollSecret: DashboardActionDefinition = {
  right: 'developer',
  async run({ form, services, mode, scope, acting, userId }) {
    const id = form.text('endpoint_id');
    const page = endpointPage(mode, id);
    const expiresIn = form.text('expires_in');
    const parsed = rollSecretInput.safeParse({ id, expires_in: /^\d{1,7}$/.test(expiresIn) ? Number(expiresIn) : Number.NaN });
    if (!parsed.success) return withError(page, 'invalid_expires_in');
    const ctx = await acting(page);
    return orRefusal(
      rollEndpointSecret(ctx, scope, id, parsed.data.expires_in, ctx.clock.now()).then(async (endpoint) => {
        await revealOnNextView(services, page, 'webhook_secret', userId, endpoint.secret);
        return page;
      }),
      page,
    );
  },
};

/**
 * Sends a past event to one endpoint again, once per rendering of the form. To an endpoint that
 * already received it (from the event's page), or from a delivery of the endpoint's log that
 * already succeeded, the person must confirm: the receiver has it.
 */
export const eventResend: DashboardActionDefinition = {
  right: 'developer',
  async run({ form, services, mode, scope, acting }) {
    const eventId = form.text('event_id');
    const endpointId = form.text('endpoint_id');
    const deliveryId = form.text('delivery_id');
    const back = deliveryId === '' ? `${dashboardBase(mode)}/events/${encodeURIComponent(eventId)}` : endpointPage(mode, endpointId);
    const key = form.text('idempotency_key');
    if (!FORM_KEY.test(key)) return withError(back, 'form_expired');
    if (endpointId === '') return withError(back, 'no_endpoint');
    if (form.text('confirm') !== 'yes') {
      const received = await eventReceived(services.db, scope, endpointId, eventId, deliveryId === '' ? undefined : deliveryId);
      if (received === undefined) return withError(back, 'resource_missing');
      // The event page asks again with the endpoint chosen and a box to tick.
      if (received) return deliveryId === '' ? withError(`${back}?endpoint_id=${encodeURIComponent(endpointId)}`, 'confirm_resend_received') : withError(back, 'confirm_resend');
    }
    return orRefusal(
      resendEvent(await acting(back), scope, eventId, endpointId, formRequest(key, { endpoint_id: endpointId })).then(() => `${back}${back.includes('?') ? '&' : '?'}saved=resent`),
      back,
    );
  },
};
