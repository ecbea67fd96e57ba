import { requireDashboard, type DashboardMode } from './access';
import { DashboardShell, NoAccess } from './shell';

export async function HomePage({ mode }: { mode: DashboardMode }) {
  const access = await requireDashboard('read');
  return (
    <DashboardShell access={access} mode={mode} path="">
      {access.current ? (
        <section className="dash-card">
          <h1>{access.current.storeName}</h1>
          <p>
            Signed in as {access.email}. Your role: <strong>{access.current.role}</strong>.
          </p>
          <p className="dash-muted">{mode === 'test' ? 'You are looking at test data: nothing here moves real money.' : 'You are looking at live data.'}</p>
        </section>
      ) : (
        <NoAccess email={access.email} />
      )}
    </DashboardShell>
  );
}
