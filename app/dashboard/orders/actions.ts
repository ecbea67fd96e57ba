import { parseEuros } from '@/server/dashboard/orders';
import { ApiError } from '@/server/errors';
import { createRefund } from '@/server/orders/refunds/service';
import { dashboardBase } from '../access';
import { FORM_KEY, formRequest, withError, type DashboardActionDefinition } from '../act/dispatch';

/** The refund form's error code for a refusal of the refund service; undefined for anything else. */
function refundErrorCode(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'parameter_invalid') return error.param === 'amount' ? 'above_remainder' : 'not_paid';
  if (error.code === 'order_already_processed') return 'refunded';
  if (error.code === 'idempotency_key_reused') return 'key_reused';
  if (error.code === 'payment_outcome_unknown') return 'outcome_unknown';
  if (error.code === 'order_disputed') return 'disputed';
  return undefined;
}

/** Refunds an order, in full or in part, once per rendering of the form; a live refund must be confirmed. */
export const refund: DashboardActionDefinition = {
  right: 'refund',
  async run({ form, mode, scope, acting }) {
    const orderId = form.text('order_id');
    const detail = `${dashboardBase(mode)}/orders/${encodeURIComponent(orderId)}`;
    if (mode === 'live' && form.text('confirm') !== 'yes') return withError(detail, 'confirm');
    const amount = parseEuros(form.text('amount'));
    if (amount === undefined || amount < 1) return withError(detail, 'amount');
    const key = form.text('idempotency_key');
    if (!FORM_KEY.test(key)) return withError(detail, 'form_expired');
    const ctx = await acting(detail);
    const input = { order_id: orderId, amount };
    const failure = await createRefund({ ...ctx, gateway: ctx.gateways[mode] }, scope, input, formRequest(key, input)).then(
      () => undefined,
      (error: unknown) => {
        const code = refundErrorCode(error);
        if (code === undefined) throw error;
        return code;
      },
    );
    return failure ? withError(detail, failure) : detail;
  },
};
