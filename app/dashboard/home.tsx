import { getAppServices } from '@/server/app';
import { homeMetrics, scopeClock, type HomeMetrics } from '@/server/dashboard/service';
import { can } from '@/server/users/roles';
import { requireDashboard, type DashboardMode } from './access';
import { ActionForm } from './act/form';
import { money, utcTime } from './format';
import { CLOCK_STEPS } from './test-clock/actions';
import { DashboardShell, NoAccess } from './shell';

/** The days the Home figures and chart cover. */
const HOME_DAYS = 30;

/** One bar per day, heights relative to the best day; drawn in SVG attributes, which the page's CSP allows. */
function DailyChart({ daily }: { daily: HomeMetrics['daily'] }) {
  const highest = Math.max(1, ...daily.map((day) => day.gross_volume));
  const width = 10;
  return (
    <figure className="dash-chart">
      <svg viewBox={`0 0 ${daily.length * width} 100`} preserveAspectRatio="none" role="img" aria-label={`Gross volume per day, ${daily[0]?.date} to ${daily.at(-1)?.date}`}>
        {daily.map((day, index) => {
          const height = Math.round((day.gross_volume / highest) * 96);
          return (
            <rect key={day.date} x={index * width + 1} y={100 - height} width={width - 2} height={height} className="dash-chart-bar">
              <title>{`${day.date}: ${money(day.gross_volume)}, ${day.orders} ${day.orders === 1 ? 'order' : 'orders'}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="dash-muted">
        Gross volume per day, {daily[0]?.date} to {daily.at(-1)?.date}
      </figcaption>
    </figure>
  );
}

function Figures({ metrics }: { metrics: HomeMetrics }) {
  const figures: [string, string][] = [
    [`Gross volume, ${HOME_DAYS} days`, money(metrics.gross_volume)],
    [`Orders, ${HOME_DAYS} days`, String(metrics.orders)],
    ['Active subscriptions', String(metrics.active_subscriptions)],
    ['MRR', money(metrics.mrr)],
    ['Past due', String(metrics.past_due)],
    ['Webhook failures, 24 hours', String(metrics.webhook_failures_24h)],
  ];
  return (
    <dl className="dash-figures">
      {figures.map(([label, value]) => (
        <div key={label} className="dash-figure">
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const CLOCK_MESSAGES: Record<string, string> = {
  test_mode_only: 'The test clock exists in test mode only.',
  clock_step: 'Choose how far to move the clock from the list.',
};

/** Test mode's clock: where the store's test time stands, and (for developers and up) the control that moves it. */
function TestClock({ now, movable, error }: { now: Date; movable: boolean; error: string | undefined }) {
  return (
    <section className="dash-card" aria-labelledby="test-clock">
      <h2 id="test-clock">Test clock</h2>
      <p>
        Test-mode time: <strong>{utcTime(Math.floor(now.getTime() / 1000))}</strong>. Moving it forward runs what falls due: renewals, retries, expiries.
      </p>
      {error && (
        <p role="alert" className="dash-alert">
          {CLOCK_MESSAGES[error] ?? 'The clock was not moved.'}
        </p>
      )}
      {movable && (
        <ActionForm action="advance-clock" mode="test" className="dash-form dash-inline-form">
          <label htmlFor="clock-step">Advance by</label>
          <select id="clock-step" name="seconds" defaultValue={String(CLOCK_STEPS[1]!.seconds)}>
            {CLOCK_STEPS.map((step) => (
              <option key={step.seconds} value={step.seconds}>
                {step.label}
              </option>
            ))}
          </select>
          <button type="submit">Advance clock</button>
        </ActionForm>
      )}
    </section>
  );
}

export async function HomePage({ mode, searchParams }: { mode: DashboardMode; searchParams: Promise<{ error?: string | string[] }> }) {
  const access = await requireDashboard('read');
  const current = access.current;
  const services = await getAppServices();
  const scope = current && { storeId: current.storeId, livemode: mode === 'live' };
  const metrics = scope ? await homeMetrics(services, scope, { days: HOME_DAYS }) : undefined;
  const clockNow = scope && mode === 'test' ? (await scopeClock(services, scope)).now() : undefined;
  const { error } = await searchParams;
  return (
    <DashboardShell access={access} mode={mode} path="">
      {current && metrics ? (
        <>
          <section className="dash-card">
            <h1>{current.storeName}</h1>
            <p>
              Signed in as {access.email}. Your role: <strong>{current.role}</strong>.
            </p>
            <p className="dash-muted">{mode === 'test' ? 'You are looking at test data: nothing here moves real money.' : 'You are looking at live data.'}</p>
          </section>
          <section className="dash-card" aria-label="Figures">
            <Figures metrics={metrics} />
            <DailyChart daily={metrics.daily} />
          </section>
          {clockNow && <TestClock now={clockNow} movable={can(current.role, 'developer')} error={typeof error === 'string' ? error : undefined} />}
        </>
      ) : (
        <NoAccess email={access.email} />
      )}
    </DashboardShell>
  );
}
