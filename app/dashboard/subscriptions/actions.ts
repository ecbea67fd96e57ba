import { metadataProblem } from '@/server/kit/metadata';
import { cancelSubscription as cancel, updateSubscription } from '@/server/subscriptions/service';
import { dashboardBase } from '../access';
import { refusalCode } from '../act/refusal';
import { withError, type DashboardActionDefinition, type FormFields } from '../act/dispatch';

export const CANCEL_REASON_MAX = 500;

const detailPath = (mode: 'live' | 'test', id: string) => `${dashboardBase(mode)}/subscriptions/${encodeURIComponent(id)}`;

/**
 * Cancels now, with the reason kept for the audit trail. A double submit cancels once: the service
 * re-reads the subscription under its row lock and answers an ended one unchanged, with no event and
 * no audit entry, so the form needs no key of its own.
 */
export const cancelSubscription: DashboardActionDefinition = {
  right: 'refund',
  async run({ form, mode, scope, acting }) {
    const id = form.text('subscription_id');
    const detail = detailPath(mode, id);
    const reason = form.text('reason').trim();
    if (reason.length > CANCEL_REASON_MAX) return withError(detail, 'reason');
    const ctx = await acting(detail);
    return cancel({ ...ctx, gateway: ctx.gateways[mode] }, scope, id, reason === '' ? undefined : reason).then(
      () => detail,
      (error: unknown) => withError(detail, refusalCode(error, { subscription_pending: 'pending', internal_error: 'gateway', resource_missing: 'missing' })),
    );
  },
};

/** The key/value rows of the metadata form; rows left blank are dropped; undefined when a key repeats or a value has no key. */
function metadataRows(form: FormFields): Record<string, string> | undefined {
  const keys = form.all('metadata_key');
  const values = form.all('metadata_value');
  const entries: [string, string][] = [];
  for (const [index, rawKey] of keys.entries()) {
    const key = rawKey.trim();
    const value = values[index] ?? '';
    if (key === '' && value === '') continue;
    if (key === '' || entries.some(([seen]) => seen === key)) return undefined;
    entries.push([key, value]);
  }
  // fromEntries, not assignment: a key named `__proto__` stays an ordinary key.
  return Object.fromEntries(entries);
}

/**
 * Replaces the metadata whole. Support may cancel a subscription, so it may annotate one: the
 * edit takes the same right as a cancel (`refund`), not the products or settings rights.
 */
export const updateSubscriptionMetadata: DashboardActionDefinition = {
  right: 'refund',
  async run({ form, mode, scope, acting }) {
    const id = form.text('subscription_id');
    const detail = detailPath(mode, id);
    const metadata = metadataRows(form);
    if (metadata === undefined || metadataProblem(metadata)) return withError(detail, 'metadata');
    return updateSubscription(await acting(detail), scope, id, metadata).then(
      () => `${detail}?updated=metadata`,
      (error: unknown) => withError(detail, refusalCode(error, { resource_missing: 'missing' })),
    );
  },
};
