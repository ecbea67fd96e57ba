import type { SearchParams } from '../list-query';
import { SettingsPage } from './settings-page';

export const dynamic = 'force-dynamic';

export default async function LiveSettings({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <SettingsPage mode="live" searchParams={await searchParams} />;
}
