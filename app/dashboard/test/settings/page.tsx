import type { SearchParams } from '../../list-query';
import { SettingsPage } from '../../settings/settings-page';

export const dynamic = 'force-dynamic';

export default async function TestSettings({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <SettingsPage mode="test" searchParams={await searchParams} />;
}
