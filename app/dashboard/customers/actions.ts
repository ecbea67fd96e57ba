import { createPortalLinkAs, deleteCustomerAs, revokePortalLinkAs } from '@/server/dashboard/customers';
import { dashboardBase } from '../access';
import { refusalCode } from '../act/refusal';
import { FORM_KEY, withError, type DashboardActionDefinition } from '../act/dispatch';
import { revealOnNextView } from '../reveal';
import { customerPath } from './paths';

/** A customer-scope portal link, once per rendering of the form; its URL is shown once on the customer page. */
export const createPortalLink: DashboardActionDefinition = {
  right: 'refund',
  async run({ form, services, mode, scope, actor, userId }) {
    const customerId = form.text('customer_id');
    const detail = customerPath(mode, customerId);
    const key = form.text('idempotency_key');
    if (!FORM_KEY.test(key)) return withError(detail, 'form_expired');
    return createPortalLinkAs(services, scope, { ...actor, path: detail }, customerId, key).then(
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
  async run({ form, services, mode, scope, actor }) {
    const customerId = form.text('customer_id');
    const detail = customerPath(mode, customerId);
    return revokePortalLinkAs(services, scope, { ...actor, path: detail }, customerId, form.text('portal_session_id')).then(
      () => detail,
      (error: unknown) => withError(detail, refusalCode(error, { resource_missing: 'portal_missing' })),
    );
  },
};

/** Deletes the customer (the API's soft delete, revoking their portal links); it must be confirmed. */
export const deleteCustomer: DashboardActionDefinition = {
  right: 'refund',
  async run({ form, services, mode, scope, actor }) {
    const customerId = form.text('customer_id');
    const detail = customerPath(mode, customerId);
    if (form.text('confirm') !== 'yes') return withError(detail, 'confirm');
    const list = `${dashboardBase(mode)}/customers`;
    return deleteCustomerAs(services, scope, { ...actor, path: detail }, customerId).then(
      () => `${list}?deleted=${encodeURIComponent(customerId)}`,
      (error: unknown) => withError(list, refusalCode(error, { resource_missing: 'customer_missing' })),
    );
  },
};
