import type { ReactNode } from 'react';
import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import type { Coupon, PromotionCode } from '@/server/coupons/schemas';
import { getCoupon, promotionCodesOfCoupon } from '@/server/coupons/service';
import { scopeClock } from '@/server/dashboard/service';
import { ApiError } from '@/server/errors';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { FactList } from '../card';
import { utcTime } from '../format';
import type { SearchParams } from '../list-query';
import { DashboardShell, storePage } from '../shell';
import { COUPON_MESSAGES, discountLabel, durationLabel } from './coupon-form';
import '../developer-pages.css';

const SAVED: Record<string, string> = {
  created: 'Coupon created.',
  code_created: 'Promotion code created.',
  code_deactivated: 'Promotion code deactivated.',
  code_activated: 'Promotion code activated.',
};

function Summary({ coupon }: { coupon: Coupon }) {
  const rows: [string, ReactNode][] = [
    ['Discount', discountLabel(coupon)],
    ['Duration', durationLabel(coupon)],
    ['Redeemed', coupon.max_redemptions === null ? String(coupon.times_redeemed) : `${coupon.times_redeemed} of ${coupon.max_redemptions}`],
    ['Redeem by', coupon.redeem_by === null ? 'no end' : utcTime(coupon.redeem_by)],
    ['Applies to', coupon.applies_to === null ? 'every product' : coupon.applies_to.products.join(', ')],
    ['Status', coupon.valid ? 'valid' : 'not valid'],
    ['Created', utcTime(coupon.created)],
  ];
  return <FactList rows={rows} />;
}

function CodesTable({ coupon, codes, mode }: { coupon: Coupon; codes: PromotionCode[]; mode: DashboardMode }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            <th scope="col">Code</th>
            <th scope="col" className="dash-num">
              Redeemed
            </th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {codes.map((code) => (
            <tr key={code.id}>
              <td data-label="Code" className="dash-mono">
                {code.code}
              </td>
              <td className="dash-num" data-label="Redeemed">
                {code.max_redemptions === null ? code.times_redeemed : `${code.times_redeemed} / ${code.max_redemptions}`}
              </td>
              <td className="dash-nowrap" data-label="Expires">
                {code.expires_at === null ? 'never' : utcTime(code.expires_at)}
              </td>
              <td data-label="Status">{code.active ? 'active' : 'inactive'}</td>
              <td data-label="Action">
                <ActionForm action="promotion-code-active" mode={mode} label={`${code.active ? 'Deactivate' : 'Activate'} ${code.code}`}>
                  <input type="hidden" name="coupon_id" value={coupon.id} />
                  <input type="hidden" name="promotion_code_id" value={code.id} />
                  <input type="hidden" name="active" value={code.active ? 'false' : 'true'} />
                  <button type="submit">{code.active ? 'Deactivate' : 'Activate'}</button>
                </ActionForm>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One coupon of the store and mode with its promotion codes; anything else is this page's 404. */
export async function CouponPage({ mode, params, searchParams }: { mode: DashboardMode; params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const entry = await storePage(mode, '/coupons', 'products');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const { id } = await params;
  const { error, saved } = await searchParams;
  const services = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const coupon = await getCoupon({ db: services.db, clock: await scopeClock(services, scope) }, scope, id).catch((failure: unknown) => {
    if (failure instanceof ApiError && failure.code === 'resource_missing') notFound();
    throw failure;
  });
  const codes = await promotionCodesOfCoupon(services, scope, coupon.id);
  const message = typeof error === 'string' ? (COUPON_MESSAGES[error] ?? 'The change could not be made.') : undefined;
  return (
    <DashboardShell access={access} mode={mode} path="/coupons">
      <p className="dash-back">
        <a href={`${dashboardBase(mode)}/coupons`}>← Coupons</a>
      </p>
      <section className="dash-card">
        <h1>{coupon.name}</h1>
        <p className="dash-muted dash-mono">{coupon.id}</p>
        {typeof saved === 'string' && SAVED[saved] && (
          <p className="dash-notice" role="status">
            {SAVED[saved]}
          </p>
        )}
        <Summary coupon={coupon} />
      </section>
      {message && (
        <p role="alert" className="dash-alert">
          {message}
        </p>
      )}
      <section className="dash-card" aria-labelledby="coupon-codes">
        <h2 id="coupon-codes">Promotion codes</h2>
        {codes.length === 0 ? <p className="dash-muted">No promotion codes yet.</p> : <CodesTable coupon={coupon} codes={codes} mode={mode} />}
        <h3>New promotion code</h3>
        <ActionForm action="promotion-code-create" mode={mode} idempotent className="dash-form" label="New promotion code">
          <input type="hidden" name="coupon_id" value={coupon.id} />
          <div className="dash-form-grid">
            <div>
              <label htmlFor="code-code">Code</label>
              <input id="code-code" name="code" required pattern="[A-Za-z0-9_\-]{3,40}" maxLength={40} aria-describedby="code-code-hint" />
              <p id="code-code-hint" className="dash-muted">
                3–40 letters, digits, “-” or “_”; customers may type it in any case.
              </p>
            </div>
            <div>
              <label htmlFor="code-max">Redemption limit</label>
              <input id="code-max" name="max_redemptions" inputMode="numeric" pattern="\d{1,9}" placeholder="none" />
            </div>
          </div>
          <button type="submit" className="dash-narrow">
            Create promotion code
          </button>
        </ActionForm>
      </section>
      <section className="dash-card" aria-labelledby="coupon-delete">
        <h2 id="coupon-delete">Delete</h2>
        <p className="dash-muted">Its promotion codes are deactivated; discounts already granted keep their terms.</p>
        <ActionForm action="coupon-delete" mode={mode} className="dash-form dash-narrow" label="Delete coupon">
          <input type="hidden" name="coupon_id" value={coupon.id} />
          <label className="dash-check">
            <input type="checkbox" name="confirm" value="yes" required /> Yes, delete this coupon
          </label>
          <button type="submit" className="dash-danger">
            Delete coupon
          </button>
        </ActionForm>
      </section>
    </DashboardShell>
  );
}
