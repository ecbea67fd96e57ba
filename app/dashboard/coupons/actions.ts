import type { z } from 'zod';
import { createCouponInput, createPromotionCodeInput, updatePromotionCodeInput } from '@/server/coupons/schemas';
import { createCoupon, createPromotionCode, deleteCoupon, updatePromotionCode } from '@/server/coupons/service';
import { parseEuros } from '@/server/dashboard/orders';
import { dashboardBase } from '../access';
import { FORM_KEY, formRequest, withError, type DashboardActionDefinition, type FormFields } from '../act/dispatch';
import { refusalCode } from '../act/refusal';

/** The service refusals a coupon form shows, by their page code. */
const REFUSALS: Record<string, string> = {
  promotion_code_unavailable: 'promotion_code_unavailable',
  resource_missing: 'resource_missing',
  idempotency_key_reused: 'form_expired',
  parameter_invalid: 'invalid_form',
};

/** A whole number typed in a form, or NaN (refused by the schema) for anything else; undefined when left empty. */
function optionalCount(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

/** The coupon form's fields as the API takes them: a percentage or an amount in euros. */
function couponFields(form: FormFields) {
  const amount = form.text('kind') === 'amount';
  const value = form.text('value');
  const duration = form.text('duration');
  const maxRedemptions = optionalCount(form.text('max_redemptions'));
  return {
    name: form.text('name'),
    ...(amount ? { amount_off: parseEuros(value) ?? Number.NaN } : { percent_off: optionalCount(value) ?? Number.NaN }),
    duration,
    ...(duration === 'repeating' ? { duration_in_months: optionalCount(form.text('duration_in_months')) ?? Number.NaN } : {}),
    ...(maxRedemptions === undefined ? {} : { max_redemptions: maxRedemptions }),
  };
}

/** The field a refused form is blamed on: its code on the page. */
const invalidField = (error: z.ZodError) => `invalid_${String(error.issues[0]?.path[0] ?? 'form')}`;

/** Runs a service call; a refusal it knows becomes `?error=<code>` on `failurePath`. */
const orRefusal = (work: Promise<string>, failurePath: string) => work.catch((error: unknown) => withError(failurePath, refusalCode(error, REFUSALS)));

/** Creates a coupon once per rendering of the form, then shows it. */
export const couponCreate: DashboardActionDefinition = {
  right: 'products',
  async run({ form, mode, scope, acting }) {
    const list = `${dashboardBase(mode)}/coupons`;
    const key = form.text('idempotency_key');
    if (!FORM_KEY.test(key)) return withError(list, 'form_expired');
    const parsed = createCouponInput.safeParse(couponFields(form));
    if (!parsed.success) return withError(list, invalidField(parsed.error));
    return orRefusal(
      createCoupon(await acting(list), scope, parsed.data, formRequest(key, parsed.data)).then((coupon) => `${list}/${coupon.id}?saved=created`),
      list,
    );
  },
};

/** Deletes a coupon once confirmed; its promotion codes are deactivated with it. */
export const couponDelete: DashboardActionDefinition = {
  right: 'products',
  async run({ form, mode, scope, acting }) {
    const id = form.text('coupon_id');
    const list = `${dashboardBase(mode)}/coupons`;
    const detail = `${list}/${encodeURIComponent(id)}`;
    if (form.text('confirm') !== 'yes') return withError(detail, 'confirm_delete');
    return orRefusal(
      deleteCoupon(await acting(detail), scope, id).then(() => `${list}?deleted=${encodeURIComponent(id)}`),
      detail,
    );
  },
};

/** Creates a promotion code for the page's coupon, once per rendering of the form. */
export const promotionCodeCreate: DashboardActionDefinition = {
  right: 'products',
  async run({ form, mode, scope, acting }) {
    const coupon = form.text('coupon_id');
    const detail = `${dashboardBase(mode)}/coupons/${encodeURIComponent(coupon)}`;
    const key = form.text('idempotency_key');
    if (!FORM_KEY.test(key)) return withError(detail, 'form_expired');
    const maxRedemptions = optionalCount(form.text('max_redemptions'));
    const parsed = createPromotionCodeInput.safeParse({ coupon, code: form.text('code').trim(), ...(maxRedemptions === undefined ? {} : { max_redemptions: maxRedemptions }) });
    if (!parsed.success) return withError(detail, invalidField(parsed.error));
    return orRefusal(
      createPromotionCode(await acting(detail), scope, parsed.data, formRequest(key, parsed.data)).then(() => `${detail}?saved=code_created`),
      detail,
    );
  },
};

/** Deactivates or activates one promotion code of the page's coupon. */
export const promotionCodeActive: DashboardActionDefinition = {
  right: 'products',
  async run({ form, mode, scope, acting }) {
    const detail = `${dashboardBase(mode)}/coupons/${encodeURIComponent(form.text('coupon_id'))}`;
    const active = form.text('active') === 'true';
    const parsed = updatePromotionCodeInput.safeParse({ id: form.text('promotion_code_id'), active });
    if (!parsed.success) return withError(detail, 'resource_missing');
    return orRefusal(
      updatePromotionCode(await acting(detail), scope, parsed.data.id, { active }).then(() => `${detail}?saved=${active ? 'code_activated' : 'code_deactivated'}`),
      detail,
    );
  },
};
