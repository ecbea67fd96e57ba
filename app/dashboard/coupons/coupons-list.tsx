import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { listCouponsInput, type CouponList } from '@/server/coupons/schemas';
import { listCoupons } from '@/server/coupons/service';
import { scopeClock } from '@/server/dashboard/service';
import { ApiError } from '@/server/errors';
import { dashboardBase, type DashboardMode } from '../access';
import { ActionForm } from '../act/form';
import { utcTime } from '../format';
import { queryText, type SearchParams } from '../list-query';
import { DashboardShell, storePage } from '../shell';
import { COUPON_MESSAGES, CouponFields, discountLabel, durationLabel } from './coupon-form';
import '../developer-pages.css';

const PAGE_SIZE = 25;

function CouponsTable({ base, list }: { base: string; list: CouponList }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table dash-table-stack">
        <thead>
          <tr>
            <th scope="col">Coupon</th>
            <th scope="col">Discount</th>
            <th scope="col">Duration</th>
            <th scope="col" className="dash-num">
              Redeemed
            </th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {list.data.map((coupon) => (
            <tr key={coupon.id}>
              <td data-label="Coupon">
                <a href={`${base}/coupons/${coupon.id}`}>{coupon.name}</a>
              </td>
              <td data-label="Discount">{discountLabel(coupon)}</td>
              <td data-label="Duration">{durationLabel(coupon)}</td>
              <td className="dash-num" data-label="Redeemed">
                {coupon.max_redemptions === null ? coupon.times_redeemed : `${coupon.times_redeemed} / ${coupon.max_redemptions}`}
              </td>
              <td data-label="Status">{coupon.valid ? 'valid' : 'not valid'}</td>
              <td className="dash-nowrap" data-label="Created">
                {utcTime(coupon.created)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The store's coupons of one mode, newest first, 25 a page, and the `New coupon` form (owners, admins, developers). */
export async function CouponsPage({ mode, searchParams }: { mode: DashboardMode; searchParams: SearchParams }) {
  const entry = await storePage(mode, '/coupons', 'products');
  if ('denied' in entry) return entry.denied;
  const { access, current } = entry;
  const base = dashboardBase(mode);
  const services = await getAppServices();
  const scope = { storeId: current.storeId, livemode: mode === 'live' };
  const query = listCouponsInput.safeParse({ limit: PAGE_SIZE, starting_after: queryText(searchParams, 'starting_after') || undefined });
  if (!query.success) notFound();
  const list = await listCoupons({ db: services.db, clock: await scopeClock(services, scope) }, scope, query.data).catch((error: unknown) => {
    // A cursor of another store, mode or list: the page does not exist.
    if (error instanceof ApiError && error.code === 'resource_missing') notFound();
    throw error;
  });
  const error = queryText(searchParams, 'error');
  const deleted = queryText(searchParams, 'deleted');
  return (
    <DashboardShell access={access} mode={mode} path="/coupons">
      <section className="dash-card">
        <h1>Coupons</h1>
        {deleted && (
          <p className="dash-notice" role="status">
            Coupon <span className="dash-mono">{deleted}</span> deleted; its promotion codes are deactivated.
          </p>
        )}
        {list.data.length === 0 && <p className="dash-muted">{searchParams.starting_after ? 'No more coupons.' : 'No coupons yet.'}</p>}
        {list.data.length > 0 && <CouponsTable base={base} list={list} />}
        {list.has_more && (
          <p className="dash-pager">
            <a href={`${base}/coupons?starting_after=${encodeURIComponent(list.data.at(-1)!.id)}`}>Next page</a>
          </p>
        )}
      </section>
      <section className="dash-card" aria-labelledby="coupon-create">
        <h2 id="coupon-create">New coupon</h2>
        {error && (
          <p role="alert" className="dash-alert">
            {COUPON_MESSAGES[error] ?? 'The coupon could not be created.'}
          </p>
        )}
        <ActionForm action="coupon-create" mode={mode} idempotent className="dash-form" label="New coupon">
          <CouponFields />
          <button type="submit" className="dash-narrow">
            Create coupon
          </button>
        </ActionForm>
      </section>
    </DashboardShell>
  );
}
