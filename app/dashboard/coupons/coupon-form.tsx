import { COUPON_DURATIONS } from '@/db/schema';
import type { Coupon } from '@/server/coupons/schemas';
import { money } from '../format';

/** What a coupon takes off: `15% off` or `€5.00 off`. */
export const discountLabel = (coupon: Coupon) => (coupon.percent_off !== null ? `${coupon.percent_off}% off` : `${money(coupon.amount_off ?? 0)} off`);

/** For how long a subscription is discounted: `once`, `3 months`, `forever`. */
export const durationLabel = (coupon: Coupon) => (coupon.duration === 'repeating' ? `${coupon.duration_in_months} months` : coupon.duration);

/** The refusals the coupon pages show, by their `?error=` code. */
export const COUPON_MESSAGES: Record<string, string> = {
  form_expired: 'This form has expired: reload the page and try again.',
  invalid_name: 'Enter a name of 1 to 255 characters.',
  invalid_percent_off: 'A percentage is a whole number from 1 to 100.',
  invalid_amount_off: 'Enter an amount in euros with at most two decimals, from 0.01 to 10000.00.',
  invalid_duration: 'Choose a duration from the list.',
  invalid_duration_in_months: 'For a repeating coupon, enter the months: a whole number from 1 to 120.',
  invalid_max_redemptions: 'The redemption limit is a whole number of at least 1, or empty for none.',
  invalid_code: 'A code is 3 to 40 letters, digits, “-” or “_”.',
  invalid_form: 'The form could not be saved: check its fields.',
  promotion_code_unavailable: 'This code is already used in this store (codes are compared in any case). Choose another one.',
  resource_missing: 'This coupon or code no longer exists.',
  confirm_delete: 'Tick the box to confirm the deletion.',
};

/** The fields of the `New coupon` form. */
export function CouponFields() {
  return (
    <div className="dash-form-grid">
      <div className="dash-span">
        <label htmlFor="coupon-name">Name</label>
        <input id="coupon-name" name="name" required maxLength={255} aria-describedby="coupon-name-hint" />
        <p id="coupon-name-hint" className="dash-muted">
          Shown to customers.
        </p>
      </div>
      <div>
        <label htmlFor="coupon-kind">Discount</label>
        <select id="coupon-kind" name="kind" defaultValue="percent">
          <option value="percent">percent off</option>
          <option value="amount">euros off</option>
        </select>
      </div>
      <div>
        <label htmlFor="coupon-value">Value</label>
        <input id="coupon-value" name="value" inputMode="decimal" required pattern="\d{1,9}(\.\d{1,2})?" aria-describedby="coupon-value-hint" />
        <p id="coupon-value-hint" className="dash-muted">
          15 for 15%, or 5.00 for €5.00.
        </p>
      </div>
      <div>
        <label htmlFor="coupon-duration">Duration</label>
        <select id="coupon-duration" name="duration" defaultValue="once">
          {COUPON_DURATIONS.map((duration) => (
            <option key={duration} value={duration}>
              {duration}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="coupon-months">Months (repeating)</label>
        <input id="coupon-months" name="duration_in_months" inputMode="numeric" pattern="\d{1,3}" />
      </div>
      <div>
        <label htmlFor="coupon-max">Redemption limit</label>
        <input id="coupon-max" name="max_redemptions" inputMode="numeric" pattern="\d{1,9}" placeholder="none" />
      </div>
    </div>
  );
}
