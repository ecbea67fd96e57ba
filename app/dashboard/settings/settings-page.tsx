import { requireDashboard, type DashboardMode } from '../access';
import { DashboardShell } from '../shell';
import { TwoFactorSettings } from './two-factor';

/** Settings of the signed-in person (every role may manage their own two-factor). */
export async function SettingsPage({ mode, searchParams }: { mode: DashboardMode; searchParams: Record<string, string | string[] | undefined> }) {
  const access = await requireDashboard('read');
  const error = typeof searchParams.error === 'string' ? searchParams.error : undefined;
  return (
    <DashboardShell access={access} mode={mode} path="/settings">
      <h1>Settings</h1>
      <TwoFactorSettings access={access} mode={mode} error={error} />
    </DashboardShell>
  );
}
