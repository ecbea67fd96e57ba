import { SettingsPage } from '../../settings/settings-page';

export const dynamic = 'force-dynamic';

export default async function TestSettings({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  return <SettingsPage mode="test" searchParams={await searchParams} />;
}
