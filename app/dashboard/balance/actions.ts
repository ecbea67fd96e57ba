import { createPayout } from '@/server/payouts/service';
import { dashboardBase } from '../access';
import { FORM_KEY, formRequest, withError, type DashboardActionDefinition } from '../act/dispatch';
import { refusalCode } from '../act/refusal';

/** The Balance page's codes for the payout service's refusals. */
const PAYOUT_REFUSALS: Record<string, string> = { balance_insufficient: 'balance_insufficient', payouts_held: 'payouts_held' };

/** Pays out the available balance once per rendering of the form (a live payout must be confirmed), then shows the payout. */
export const payOut: DashboardActionDefinition = {
  right: 'balance',
  async run({ form, mode, scope, acting }) {
    const page = `${dashboardBase(mode)}/balance`;
    if (mode === 'live' && form.text('confirm') !== 'yes') return withError(page, 'confirm');
    const key = form.text('idempotency_key');
    if (!FORM_KEY.test(key)) return withError(page, 'form_expired');
    return createPayout(await acting(page), scope, formRequest(key, {})).then(
      (payout) => `${dashboardBase(mode)}/payouts/${payout.id}?saved=created`,
      (error: unknown) => withError(page, refusalCode(error, PAYOUT_REFUSALS)),
    );
  },
};
