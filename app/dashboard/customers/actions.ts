import { deleteCustomer as deleteCustomerOf } from '@/server/customers/service';
import { createPortalSession, revokePortalSession } from '@/server/portal/service';
import { dashboardBase } from '../access';
import { refusalCode } from '../act/refusal';
import { FORM_KEY, formRequest, withError, type DashboardActionDefinition } from '../act/dispatch';
import { revealOnNextView } from '../reveal';
import { customerPath } from './paths';

/** A customer-scope portal link, once per rendering of the form; its URL is shown once on the customer page. */
export const createPortalLink: DashboardActionDefinition = {
  right: 'refund',
  async run({ form, services, mode, scope, acting, userId }) {
    const customerId = form.text('customer_id');
    const detail = customerPath(mode, customerId);
    const key = form.text('idempotency_key');
    if (!FORM_KEY.test(key)) return withError(detail, 'form_expired');
    const input = { customer_id: customerId };
    return createPortalSession(await acting(detail), scope, input, formRequest(key, input)).then(
      async (session) => {
        // The link is shown once, on the page this answers with; a replay of the form has none to show.
        if (session.url) await revealOnNextView(services, detail, 'portal_link', userId, session.url);
        return detail;
      },
      (error: unknown) => withError(detail, refusalCode(error, { resource_missing: 'customer_missing', idempotency_key_reused: 'form_expired' })),
    );
  },
};

/** Revokes one of the customer's portal links at once. */
export const revokePortalLink: DashboardActionDefinition = {
  right: 'refund',
  async run({ form, mode, scope, acting }) {
    const customerId = form.text('customer_id');
    const detail = customerPath(mode, customerId);
    return revokePortalSession(await acting(detail), scope, form.text('portal_session_id'), customerId).then(
      () => detail,
      (error: unknown) => withError(detail, refusalCode(error, { resource_missing: 'portal_missing' })),
    );
  },
};

/** Deletes the customer (the API's soft delete, revoking their portal links); it must be confirmed. */
export const deleteCustomer: DashboardActionDefinition = {
  right: 'refund',
  async run({ form, mode, scope, acting }) {
    const customerId = form.text('customer_id');
    const detail = customerPath(mode, customerId);
    if (form.text('confirm') !== 'yes') return withError(detail, 'confirm');
    const list = `${dashboardBase(mode)}/customers`;
    return deleteCustomerOf(await acting(detail), scope, customerId).then(
      () => `${list}?deleted=${encodeURIComponent(customerId)}`,
      (error: unknown) => withError(list, refusalCode(error, { resource_missing: 'customer_missing' })),
    );
  },
};
