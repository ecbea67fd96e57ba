import { SettingsPage } from './settings-page';

export const dynamic = 'force-dynamic';

export default async function LiveSettings({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  return <SettingsPage mode="live" searchParams={await searchParams} />;
}
